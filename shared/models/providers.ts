/**
 * The SDK's own model classes, configured for each provider. Loaded lazily by
 * `modelFactory`: a host that never runs an agent never loads a provider SDK.
 *
 * Each client is built with its own retries off (`maxRetries: 0`, `maxAttempts: 1`):
 * the resilient provider owns retrying, so it can honour `Retry-After`, bound the
 * total wait and record every retry.
 */
import type { Model } from '@strands-agents/sdk';
import type { ProviderPlan } from './provider.ts';
import { ResilientModel, type ResilienceOptions } from './resilient-model.ts';
import { needs } from '../config/needs.ts';

needs('models'); // bedrock:InvokeModel* when the provider is Bedrock

/** Output tokens per turn: a page of submit_action calls fits with room to spare, on every Claude. */
export const ANTHROPIC_MAX_TOKENS = 4096;

/** The provider's SDK model for a plan, unwrapped. */
export async function createProviderModel(plan: ProviderPlan): Promise<Model> {
  const modelId = plan.modelId !== undefined ? { modelId: plan.modelId } : {};
  switch (plan.provider) {
    case 'openai':
    case 'groq': {
      // One import at a time: jest's ESM loader races on modules imported concurrently.
      const { OpenAIModel } = await import('@strands-agents/sdk/models/openai');
      const { default: OpenAI } = await import('openai');
      const client = new OpenAI({
        apiKey: plan.apiKey ?? '',
        ...(plan.baseURL !== undefined ? { baseURL: plan.baseURL } : {}),
        maxRetries: 0,
      });
      return new OpenAIModel({ api: 'chat', ...modelId, client });
    }
    case 'anthropic': {
      const { AnthropicModel } = await import('@strands-agents/sdk/models/anthropic');
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      const client = new Anthropic({
        apiKey: plan.apiKey ?? '',
        ...(plan.baseURL !== undefined ? { baseURL: plan.baseURL } : {}),
        maxRetries: 0,
      });
      return new AnthropicModel({ ...modelId, maxTokens: ANTHROPIC_MAX_TOKENS, client: rawEvents(client) });
    }
    case 'bedrock': {
      const { BedrockModel } = await import('@strands-agents/sdk/models/bedrock');
      return new BedrockModel({
        ...modelId,
        ...(plan.region !== undefined ? { region: plan.region } : {}),
        clientConfig: { maxAttempts: 1 },
      });
    }
  }
}

type AnthropicClient = import('@anthropic-ai/sdk').default;
type StreamingBody = import('@anthropic-ai/sdk').default.MessageCreateParamsStreaming;
type RequestOptions = Parameters<AnthropicClient['messages']['countTokens']>[1];

/**
 * The Anthropic client with `messages.stream` serving the raw server-sent events. The
 * SDK's MessageStream parses each tool call's JSON at `content_block_stop` and throws
 * on a slip, before the resilient provider could repair it; the raw events carry the
 * same data (the Strands model reads nothing else) and leave the JSON to the repair.
 * Server-side tool pauses (`pause_turn`, which need `finalMessage`) are not used here.
 */
export function rawEvents(client: AnthropicClient): AnthropicClient {
  const messages = {
    stream: (body: Omit<StreamingBody, 'stream'>, options?: RequestOptions) => ({
      async *[Symbol.asyncIterator]() {
        yield* await client.messages.create({ ...body, stream: true }, options);
      },
      finalMessage: () =>
        Promise.reject(new Error('server-side tool pauses (pause_turn) are not supported by this client')),
    }),
    countTokens: client.messages.countTokens.bind(client.messages),
  };
  return { messages } as unknown as AnthropicClient;
}

/** The provider's model inside the resilient provider. */
export async function createResilientModel(
  plan: ProviderPlan,
  resilience: Omit<ResilienceOptions, 'onEvent' | 'provider'> = {},
): Promise<ResilientModel> {
  return new ResilientModel(await createProviderModel(plan), { ...resilience, provider: plan.provider });
}
