import { Message, TextBlock } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../../shared/config/env.ts';
import { InvalidInputError } from '../../../shared/errors/index.ts';
import { OfflineModel } from '../../../shared/models/offline/offline-model.ts';
import {
  GROQ_DEFAULT_BASE_URL,
  GROQ_DEFAULT_MODEL_ID,
  modelFactory,
  providerPlan,
  type ProviderEnv,
} from '../../../shared/models/provider.ts';
import { routeModelEvents, type ModelEvent } from '../../../shared/models/model-events.ts';
import { ResilientModel } from '../../../shared/models/resilient-model.ts';
import { openAIServer, type ScriptedServer } from './support/wire-servers.ts';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function planError(env: ProviderEnv): string {
  try {
    providerPlan(env, 'primary');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('providers behind HANDOFF_MODEL_PROVIDER', () => {
  it('keeps local offline and unwrapped', async () => {
    const model = await modelFactory({ HANDOFF_MODEL_PROVIDER: 'local' })('primary');
    expect(model).toBeInstanceOf(OfflineModel);
    expect(await modelFactory('local')('fallback')).toBeInstanceOf(OfflineModel);
  });

  it('names the missing variable in one line', () => {
    expect(planError({ HANDOFF_MODEL_PROVIDER: 'groq' })).toBe(
      'GROQ_API_KEY is not set: HANDOFF_MODEL_PROVIDER=groq needs an API key',
    );
    expect(planError({ HANDOFF_MODEL_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: '  ' })).toBe(
      'ANTHROPIC_API_KEY is not set: HANDOFF_MODEL_PROVIDER=anthropic needs an API key',
    );
    expect(planError({ HANDOFF_MODEL_PROVIDER: 'openai' })).toMatch(/^OPENAI_API_KEY is not set: /);
    expect(
      planError({ HANDOFF_MODEL_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }),
    ).toBe(
      'HANDOFF_MODEL_ID is not set: name the model http://127.0.0.1:11434/v1 serves (HANDOFF_MODEL_PROVIDER=openai with OPENAI_BASE_URL)',
    );
    expect(planError({ HANDOFF_MODEL_PROVIDER: 'mystery' })).toMatch(
      /^HANDOFF_MODEL_PROVIDER=mystery is not valid/,
    );
  });

  it('fails the first model request, not the host, when a key is missing', async () => {
    const factory = modelFactory({ HANDOFF_MODEL_PROVIDER: 'groq' });
    await expect(factory('primary')).rejects.toThrow('GROQ_API_KEY is not set');
  });

  it('uses HANDOFF_MODEL_ID for the primary and HANDOFF_FALLBACK_MODEL_ID (else the primary) for the fallback', () => {
    const env = { HANDOFF_MODEL_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k', HANDOFF_MODEL_ID: 'big' };
    expect(providerPlan(env, 'primary').modelId).toBe('big');
    expect(providerPlan(env, 'fallback').modelId).toBe('big');
    expect(providerPlan({ ...env, HANDOFF_FALLBACK_MODEL_ID: 'small' }, 'fallback').modelId).toBe('small');
    expect(providerPlan({ HANDOFF_MODEL_PROVIDER: 'bedrock', AWS_REGION: 'eu-west-1' }, 'primary')).toEqual({
      provider: 'bedrock',
      modelId: undefined,
      apiKey: undefined,
      baseURL: undefined,
      region: 'eu-west-1',
    });
  });

  it('defaults Groq to its OpenAI-compatible endpoint and a llama model; a local server needs no key', () => {
    const env = loadEnv({ HANDOFF_MODEL_PROVIDER: 'groq', GROQ_API_KEY: 'gsk' });
    expect(env.GROQ_BASE_URL).toBe(GROQ_DEFAULT_BASE_URL);
    expect(providerPlan(env, 'primary')).toMatchObject({
      modelId: GROQ_DEFAULT_MODEL_ID,
      baseURL: GROQ_DEFAULT_BASE_URL,
    });
    expect(
      providerPlan(
        {
          HANDOFF_MODEL_PROVIDER: 'openai',
          OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
          HANDOFF_MODEL_ID: 'qwen',
        },
        'primary',
      ),
    ).toMatchObject({ apiKey: 'not-needed', modelId: 'qwen' });
  });

  it('serves each role its own model over one wrapped client per role, the listener per call', async () => {
    server = await openAIServer({ policy: () => ({ text: 'ok' }) });
    const env = loadEnv({
      HANDOFF_MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: server.url,
      HANDOFF_MODEL_ID: 'primary-model',
      HANDOFF_FALLBACK_MODEL_ID: 'cheap-model',
    });
    const factory = modelFactory(env);
    const primary = await factory('primary');
    const fallback = await factory('fallback');
    const again = await factory('primary', { onEvent: () => {} });

    expect(primary).toBeInstanceOf(ResilientModel);
    expect((again as ResilientModel).inner).toBe((primary as ResilientModel).inner);
    expect(primary.modelId).toBe('primary-model');
    expect(fallback.modelId).toBe('cheap-model');
    const generator = fallback.streamAggregated([
      new Message({ role: 'user', content: [new TextBlock('hi')] }),
    ]);
    for (let next = await generator.next(); !next.done; next = await generator.next());
    expect(server.requests[0]!.body.model).toBe('cheap-model');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer not-needed');
  });

  it("routes a run's model events to its feed channel and to the optional recorder", () => {
    const emitted: unknown[][] = [];
    const recorded: [string, ModelEvent][] = [];
    const listener = routeModelEvents('run_1', {
      emit: (...args) => void emitted.push(args),
      repairs: (runId, event) => void recorded.push([runId, event]),
    });
    const event: ModelEvent = {
      kind: 'retried',
      provider: 'groq',
      modelId: 'llama',
      reason: 'throttled',
      attempt: 1,
      waitMs: 2000,
      retryAfter: true,
      status: 429,
      detail: 'HTTP 429 (throttled); retrying in 2 s as Retry-After asks',
    };

    listener(event);

    expect(emitted).toEqual([
      [
        'run_1',
        'retried',
        'HTTP 429 (throttled); retrying in 2 s as Retry-After asks',
        {
          provider: 'groq',
          modelId: 'llama',
          reason: 'throttled',
          attempt: 1,
          waitMs: 2000,
          retryAfter: true,
          status: 429,
        },
      ],
    ]);
    expect(recorded).toEqual([['run_1', event]]);
  });
});
