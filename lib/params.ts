import type { Node } from 'constructs';

/** Model providers the app knows (shared/config/env.ts); only `bedrock` gets IAM permissions here. */
export const MODEL_PROVIDERS = ['local', 'bedrock', 'anthropic', 'openai', 'groq'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** What one deployment of Handoff is parameterised by (`-c key=value` on the CDK CLI). */
export interface HandoffParams {
  /** Names the stack (`handoff-<stage>`); `dev` also makes stateful resources deletable. */
  stage: string;
  /** Subscribes this address to the notification topic (the subscription must be confirmed). */
  notifyEmail?: string;
  /** Where links in notifications point; unset, the API's own URL. */
  uiBaseUrl?: string;
  modelProvider: ModelProvider;
  /** Unset: the provider's default model. */
  modelId?: string;
  /** Unset: no separate fallback model. */
  fallbackModelId?: string;
}

/** Thrown for a context value that would deploy something broken. */
export class InvalidParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Reads and checks the deployment parameters from CDK context (`app.node`); a bad value is one clear line. */
export function readParams(node: Pick<Node, 'tryGetContext'>): HandoffParams {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null) return undefined;
    const trimmed = String(value).trim();
    return trimmed === '' ? undefined : trimmed;
  };

  const stage = text('stage') ?? 'dev';
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
    throw new InvalidParamError(`stage=${stage} is not valid: use 1-20 lowercase letters, digits or '-'`);

  const provider = text('modelProvider') ?? 'bedrock';
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider))
    throw new InvalidParamError(
      `modelProvider=${provider} is not valid: use one of ${MODEL_PROVIDERS.join(', ')}`,
    );

  const notifyEmail = text('notifyEmail');
  if (notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(notifyEmail))
    throw new InvalidParamError(`notifyEmail=${notifyEmail} is not an email address`);

  const uiBaseUrl = text('uiBaseUrl');
  if (uiBaseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(uiBaseUrl))
    throw new InvalidParamError(`uiBaseUrl=${uiBaseUrl} is not valid: use an absolute http(s) URL`);

  const modelId = text('modelId');
  const fallbackModelId = text('fallbackModelId');
  return {
    stage,
    modelProvider: provider as ModelProvider,
    ...(notifyEmail !== undefined ? { notifyEmail } : {}),
    ...(uiBaseUrl !== undefined ? { uiBaseUrl: uiBaseUrl.replace(/\/+$/, '') } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
    ...(fallbackModelId !== undefined ? { fallbackModelId } : {}),
  };
}
