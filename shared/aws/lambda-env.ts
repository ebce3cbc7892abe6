/**
 * The environment of the Lambda functions: the common settings (shared/config/env.ts)
 * plus the AWS-only names, each function asking for the ones its bindings set
 * (deployment.ts). A missing or
 * bad variable is one line naming it, thrown at cold start.
 */
import { z } from 'zod';
import { loadEnv, type Env } from '../config/env.ts';
import { InvalidInputError } from '../errors/index.ts';
import { type BoundVar, boundVars, type LambdaFunction } from './deployment.ts';

export type { LambdaFunction } from './deployment.ts';

const arn = (service: string) =>
  z
    .string()
    .regex(new RegExp(`^arn:aws[a-z-]*:${service}:`), { message: `must be an ARN (arn:aws:${service}:...)` });
const name = z.string().min(1, { message: 'must not be empty' });

const LambdaVarsSchema = z.object({
  EVENT_BUS_NAME: name,
  NOTIFY_TOPIC_ARN: arn('sns'),
  LINK_KEY_SECRET_ARN: arn('secretsmanager'),
  API_KEY_SECRET_ARN: arn('secretsmanager'),
  WEBHOOK_SECRET_ARN: arn('secretsmanager'),
  UI_BASE_URL: z.url({ message: 'must be a URL like https://handoff.example.com' }),
  SCHEDULE_GROUP_NAME: name,
  SCHEDULER_ROLE_ARN: arn('iam'),
  TRIGGER_FUNCTION_ARN: arn('lambda'),
  /** The stack sets it where speech is served (the api function): named there, never defaulted. */
  HANDOFF_SPEECH_PROVIDER: z.enum(['aws', 'groq', 'browser'], {
    message: 'must be aws, groq or browser on Lambda (it has no local speech engines)',
  }),
});

export type LambdaVar = keyof z.infer<typeof LambdaVarsSchema>;
export type LambdaVars = z.infer<typeof LambdaVarsSchema>;
/** The common settings plus the Lambda-only variables: `K` present and valid, `M` valid when present. */
export type LambdaEnv<K extends LambdaVar, M extends LambdaVar = never> = Env &
  Pick<LambdaVars, K> &
  Partial<Pick<LambdaVars, M>>;

/** What every function that runs the engine needs: where steps go and where links point. */
export const ENGINE_VARS = ['EVENT_BUS_NAME', 'UI_BASE_URL'] as const satisfies readonly LambdaVar[];
/**
 * What the engine uses when a function has it: without a topic a function cannot notify,
 * without the link key it cannot sign links (each fails with one line if it tries).
 */
export const ENGINE_OPTIONAL_VARS = [
  'NOTIFY_TOPIC_ARN',
  'LINK_KEY_SECRET_ARN',
] as const satisfies readonly LambdaVar[];

const LAMBDA_VARS = new Set<string>(Object.keys(LambdaVarsSchema.shape));
const isLambdaVar = (name: string): name is LambdaVar => LAMBDA_VARS.has(name);

/** What function `fn` needs of the Lambda-only variables: those its bindings set (deployment.ts). */
export function functionVars<F extends LambdaFunction>(fn: F): Extract<BoundVar<F>, LambdaVar>[] {
  return boundVars(fn).filter(isLambdaVar) as Extract<BoundVar<F>, LambdaVar>[];
}

/** The environment function `F` runs with. */
export type FunctionEnv<F extends LambdaFunction> = LambdaEnv<
  Extract<BoundVar<F>, LambdaVar>,
  (typeof ENGINE_OPTIONAL_VARS)[number]
>;

/**
 * The environment of Lambda function `fn`: the common settings (which must select
 * DynamoDB), the variables it needs, and the optional engine ones when set. Throws
 * InvalidInputError with one line naming the variable.
 */
export function lambdaEnvFor<F extends LambdaFunction>(
  fn: F,
  source: NodeJS.ProcessEnv = process.env,
): FunctionEnv<F> {
  return loadLambdaEnv(functionVars(fn), ENGINE_OPTIONAL_VARS, source) as FunctionEnv<F>;
}

/**
 * Parses the environment of a Lambda function: the common settings (which must select
 * DynamoDB) and the Lambda-only variables in `needs`. Throws InvalidInputError with one
 * line naming the variable.
 */
export function loadLambdaEnv<K extends LambdaVar, M extends LambdaVar = never>(
  needs: readonly K[],
  may: readonly M[] = [],
  source: NodeJS.ProcessEnv = process.env,
): LambdaEnv<K, M> {
  const env = loadEnv(source);
  if (!env.USE_DYNAMODB)
    throw new InvalidInputError(
      `USE_DYNAMODB=${String(source.USE_DYNAMODB)} is not valid: must be true on Lambda (the local JSON store does not survive the container)`,
    );
  if (!source.HANDOFF_TABLE)
    throw new InvalidInputError('HANDOFF_TABLE is not set: name the DynamoDB table of this deployment');
  const names = [...new Set<LambdaVar>([...needs, ...may])];
  const mask = Object.fromEntries(names.map((n) => [n, true])) as Record<LambdaVar, true>;
  const optional = Object.fromEntries(may.filter((m) => !needs.includes(m as never)).map((m) => [m, true]));
  const schema = LambdaVarsSchema.pick(mask).partial(optional as Record<LambdaVar, true>);
  const given = Object.fromEntries(names.map((n) => [n, source[n] === '' ? undefined : source[n]]));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const value = source[variable];
    throw new InvalidInputError(
      value === undefined || value === ''
        ? `${variable} is not set: this Lambda function needs it`
        : `${variable}=${value} is not valid: ${issue?.message ?? 'unknown'}`,
    );
  }
  const vars = parsed.data as Pick<LambdaVars, K> & Partial<Pick<LambdaVars, M>>;
  // On Lambda a topic means SNS unless NOTIFY_CHANNEL says otherwise (a log reaches nobody).
  const topic = (vars as Partial<LambdaVars>).NOTIFY_TOPIC_ARN;
  const channel = !source.NOTIFY_CHANNEL && topic ? 'sns' : env.NOTIFY_CHANNEL;
  return { ...env, ...vars, NOTIFY_CHANNEL: channel };
}
