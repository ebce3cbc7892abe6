import type { Model } from '@strands-agents/sdk';
import { loadEnv } from '../config/env.ts';
import { InvalidInputError } from '../errors/index.ts';
import type { ModelEventListener } from './model-events.ts';
import type { ResilienceOptions } from './resilient-model.ts';

export type ModelRole = 'primary' | 'fallback';

/** Per-call options: where the resilient provider reports its repairs and retries (one run's feed). */
export interface ModelOptions {
  onEvent?: ModelEventListener;
}

/** Makes the model for a role; async so a host that never runs an agent never loads the SDK. */
export interface ModelFactory {
  (role: ModelRole, options?: ModelOptions): Promise<Model>;
}

export type ProviderName = 'local' | 'bedrock' | 'anthropic' | 'openai' | 'groq';

/** The variables the providers read besides HANDOFF_MODEL_PROVIDER (docs/providers.md lists each). */
export const PROVIDER_VARIABLES = [
  'HANDOFF_MODEL_ID',
  'HANDOFF_FALLBACK_MODEL_ID',
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'GROQ_API_KEY',
  'GROQ_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'AWS_REGION',
] as const;

/** The variables the providers read (a subset of `Env`; any `Env` will do). */
export type ProviderEnv = { HANDOFF_MODEL_PROVIDER: string } & {
  [Name in (typeof PROVIDER_VARIABLES)[number]]?: string | undefined;
};

/** Everything needed to build one provider's model for one role. */
export interface ProviderPlan {
  provider: Exclude<ProviderName, 'local'>;
  /** Undefined: the SDK's default for the provider. */
  modelId: string | undefined;
  apiKey: string | undefined;
  baseURL: string | undefined;
  region: string | undefined;
}

export const GROQ_DEFAULT_BASE_URL = 'https://api.groq.com/openai/v1';
/** Groq has no SDK default; this one calls tools well and is widely available there. */
export const GROQ_DEFAULT_MODEL_ID = 'llama-3.3-70b-versatile';
/** What an OpenAI-compatible server that needs no key is sent (the client insists on one). */
export const NO_API_KEY = 'not-needed';

function unset(variable: string, why: string): InvalidInputError {
  return new InvalidInputError(`${variable} is not set: ${why}`);
}

function value(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/**
 * The plan for a role, or one clear error naming the variable that is missing.
 * The fallback role uses HANDOFF_FALLBACK_MODEL_ID, else the primary's model.
 */
export function providerPlan(env: ProviderEnv, role: ModelRole): ProviderPlan {
  const provider = env.HANDOFF_MODEL_PROVIDER;
  const primary = value(env.HANDOFF_MODEL_ID);
  const modelId = role === 'fallback' ? (value(env.HANDOFF_FALLBACK_MODEL_ID) ?? primary) : primary;
  switch (provider) {
    case 'bedrock':
      return { provider, modelId, apiKey: undefined, baseURL: undefined, region: value(env.AWS_REGION) };
    case 'anthropic': {
      const apiKey = value(env.ANTHROPIC_API_KEY);
      if (!apiKey) throw unset('ANTHROPIC_API_KEY', 'HANDOFF_MODEL_PROVIDER=anthropic needs an API key');
      return { provider, modelId, apiKey, baseURL: value(env.ANTHROPIC_BASE_URL), region: undefined };
    }
    case 'openai': {
      const baseURL = value(env.OPENAI_BASE_URL);
      const apiKey = value(env.OPENAI_API_KEY);
      if (!baseURL && !apiKey)
        throw unset(
          'OPENAI_API_KEY',
          "HANDOFF_MODEL_PROVIDER=openai needs an API key (or OPENAI_BASE_URL for a server that needs none, such as Ollama's)",
        );
      if (baseURL && !modelId)
        throw unset(
          'HANDOFF_MODEL_ID',
          `name the model ${baseURL} serves (HANDOFF_MODEL_PROVIDER=openai with OPENAI_BASE_URL)`,
        );
      return { provider, modelId, apiKey: apiKey ?? NO_API_KEY, baseURL, region: undefined };
    }
    case 'groq': {
      const apiKey = value(env.GROQ_API_KEY);
      if (!apiKey) throw unset('GROQ_API_KEY', 'HANDOFF_MODEL_PROVIDER=groq needs an API key');
      return {
        provider,
        modelId: modelId ?? GROQ_DEFAULT_MODEL_ID,
        apiKey,
        baseURL: value(env.GROQ_BASE_URL) ?? GROQ_DEFAULT_BASE_URL,
        region: undefined,
      };
    }
    default:
      throw new InvalidInputError(
        `HANDOFF_MODEL_PROVIDER=${provider} is not valid: use local, bedrock, anthropic, openai or groq`,
      );
  }
}

export interface ModelFactoryOptions {
  /** Bounds of the resilient provider (tests shorten them). */
  resilience?: Omit<ResilienceOptions, 'onEvent' | 'provider'>;
}

/**
 * Builds the model for a role from HANDOFF_MODEL_PROVIDER. Pass the environment
 * (`modelFactory(env)`); a bare provider name reads the other variables from
 * `process.env`. A missing variable fails the first model request with one line
 * naming it, so hosts that never run an agent do not need the keys.
 *
 * Every provider but `local` is wrapped in the resilient provider; each call gets
 * its own listener over one shared client per role.
 */
export function modelFactory(config: string | ProviderEnv, options: ModelFactoryOptions = {}): ModelFactory {
  const provider = typeof config === 'string' ? config : config.HANDOFF_MODEL_PROVIDER;
  if (provider === 'local')
    return async () => {
      await routeSdkLoggingOnce();
      return new (await import('./offline/offline-model.ts')).OfflineModel();
    };
  const env = (): ProviderEnv =>
    typeof config === 'string' ? { ...loadEnv(), HANDOFF_MODEL_PROVIDER: config } : config;
  const built = new Map<ModelRole, Promise<import('./resilient-model.ts').ResilientModel>>();
  return async (role, callOptions = {}) => {
    let model = built.get(role);
    if (!model) {
      const plan = providerPlan(env(), role);
      model = routeSdkLoggingOnce()
        .then(() => import('./providers.ts'))
        .then((m) => m.createResilientModel(plan, options.resilience));
      built.set(role, model);
      model.catch(() => built.delete(role));
    }
    return (await model).withListener(callOptions.onEvent);
  };
}

let sdkLogging: Promise<void> | undefined;

/**
 * Routes the agent SDK's logging through the product's log before the first model is
 * made: no agent or graph runs without a model, and the SDK stays unloaded until then.
 */
function routeSdkLoggingOnce(): Promise<void> {
  return (sdkLogging ??= import('../logging/sdk-logging.ts').then((m) => m.routeSdkLogging()));
}
