/**
 * The environment of the Lambda functions: the common settings (shared/config/env.ts)
 * plus the AWS-only names, each function asking for the ones it needs. A missing or
 * bad variable is one line naming it, thrown at cold start.
 */
import { z } from 'zod';
import { loadEnv, type Env } from '../config/env.ts';
import { InvalidInputError } from '../errors/index.ts';

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
});

export type LambdaVar = keyof z.infer<typeof LambdaVarsSchema>;
export type LambdaVars = z.infer<typeof LambdaVarsSchema>;
/** The common settings plus the named Lambda-only variables, all present and valid. */
export type LambdaEnv<K extends LambdaVar> = Env & Pick<LambdaVars, K>;

/** What every function that runs the engine needs (trigger, executor, completer, resume, api, webhook, step-failed). */
export const ENGINE_VARS = [
  'EVENT_BUS_NAME',
  'NOTIFY_TOPIC_ARN',
  'LINK_KEY_SECRET_ARN',
  'UI_BASE_URL',
] as const satisfies readonly LambdaVar[];
/** The API function: the engine plus the API key (for `/events/*`; `/api/*` is authorised by API Gateway). */
export const API_VARS = [...ENGINE_VARS, 'API_KEY_SECRET_ARN'] as const satisfies readonly LambdaVar[];
/** The webhook function: the engine plus the webhook signing secret. */
export const WEBHOOK_VARS = [...ENGINE_VARS, 'WEBHOOK_SECRET_ARN'] as const satisfies readonly LambdaVar[];
/** The schedule-sync function: the store and where schedules go. */
export const SCHEDULE_VARS = [
  'SCHEDULE_GROUP_NAME',
  'SCHEDULER_ROLE_ARN',
  'TRIGGER_FUNCTION_ARN',
] as const satisfies readonly LambdaVar[];

/**
 * Parses the environment of a Lambda function: the common settings (which must select
 * DynamoDB) and the Lambda-only variables in `needs`. Throws InvalidInputError with one
 * line naming the variable.
 */
export function loadLambdaEnv<K extends LambdaVar>(
  needs: readonly K[],
  source: NodeJS.ProcessEnv = process.env,
): LambdaEnv<K> {
  const env = loadEnv(source);
  if (!env.USE_DYNAMODB)
    throw new InvalidInputError(
      `USE_DYNAMODB=${String(source.USE_DYNAMODB)} is not valid: must be true on Lambda (the local JSON store does not survive the container)`,
    );
  if (!source.HANDOFF_TABLE)
    throw new InvalidInputError('HANDOFF_TABLE is not set: name the DynamoDB table of this deployment');
  const mask = Object.fromEntries(needs.map((n) => [n, true])) as Partial<Record<LambdaVar, true>>;
  const picked = LambdaVarsSchema.pick(mask as Record<LambdaVar, true>);
  const given = Object.fromEntries(needs.map((n) => [n, source[n] === '' ? undefined : source[n]]));
  const parsed = picked.safeParse(given);
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
  return { ...env, ...(parsed.data as Pick<LambdaVars, K>) };
}
