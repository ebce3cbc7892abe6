import path from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const EnvSchema = z.object({
  HANDOFF_STATE_DIR: z.string().min(1).default('.handoff'),
  USE_DYNAMODB: flag,
  /** The local server works its runs in its own thread instead of a child process per run (tests). */
  HANDOFF_RUNS_IN_THREAD: flag,
  HANDOFF_TABLE: z.string().min(1).default('handoff'),
  DYNAMODB_ENDPOINT: z.url().optional(),
  /**
   * Unset: the AWS SDK's own chain (the profile's region, then the instance's). Lambda
   * sets it itself. AWS_DEFAULT_REGION counts when AWS_REGION is unset, as in the AWS CLI.
   */
  AWS_REGION: z.string().min(1).optional(),
  CONFIDENCE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.7),
  DECISION_TTL_HOURS: z.coerce.number().positive().default(72),
  USE_AGENTCORE_MEMORY: flag,
  AGENTCORE_MEMORY_ID: z.string().optional(),
  AGENTCORE_ACTOR_ID: z.string().optional(),
  HANDOFF_MODEL_PROVIDER: z.enum(['local', 'bedrock', 'anthropic', 'openai', 'groq']).default('local'),
  /** The primary model (the executor); unset, the provider's default. */
  HANDOFF_MODEL_ID: z.string().optional(),
  /** The cheaper model (learner, trigger, completer); unset, the primary. */
  HANDOFF_FALLBACK_MODEL_ID: z.string().optional(),
  /** Any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp); unset, OpenAI's own. */
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  GROQ_API_KEY: z.string().optional(),
  GROQ_BASE_URL: z.url().default('https://api.groq.com/openai/v1'),
  /** Who hears and speaks on the Talk page: pocketsphinx + espeak-ng, Transcribe + Polly, Groq, or the page. */
  HANDOFF_SPEECH_PROVIDER: z.enum(['local', 'aws', 'groq', 'browser']).default('local'),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  HANDOFF_API_KEY: z.string().optional(),
  /** The workspace the CLI works in (`--workspace` wins); unset, `default`. */
  HANDOFF_WORKSPACE: z.string().optional(),
  HANDOFF_WEBHOOK_SECRET: z.string().optional(),
  /**
   * A folder whose `<workspace id>/` subfolder a workspace's scoped keys may also point Maildir
   * sources at (besides the workspace's own folder under the state directory).
   */
  HANDOFF_WORKSPACE_MAIL_ROOT: z.string().min(1).optional(),
  /** When set, every web page needs a login with this password (decision links still open alone). */
  HANDOFF_UI_PASSWORD: z.string().optional(),
  /** Where links in notifications point; unset, the local server's own address. */
  UI_BASE_URL: z.url().optional(),
  NOTIFY_CHANNEL: z.enum(['console', 'slack', 'sns']).default('console'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every variable `loadEnv` reads (AWS_DEFAULT_REGION stands in for an unset AWS_REGION). */
export const ENV_VARIABLES: readonly string[] = [...Object.keys(EnvSchema.shape), 'AWS_DEFAULT_REGION'];

/** Parses the process environment once; a bad value is one clear line. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  // The JS SDK reads only AWS_REGION; the CLI's AWS_DEFAULT_REGION is honoured here.
  if (cleaned.AWS_REGION === undefined && cleaned.AWS_DEFAULT_REGION !== undefined)
    cleaned.AWS_REGION = cleaned.AWS_DEFAULT_REGION;
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new InvalidInputError(
      `${name}=${String(source[name])} is not valid: ${issue?.message ?? 'unknown'}`,
    );
  }
  return { ...parsed.data, HANDOFF_STATE_DIR: path.resolve(parsed.data.HANDOFF_STATE_DIR) };
}
