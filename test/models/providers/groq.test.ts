import type { Model, StreamOptions } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ModelEvent } from '../../../shared/models/model-events.ts';
import { modelFactory, type ModelFactoryOptions } from '../../../shared/models/provider.ts';
import { ProviderGaveUpError } from '../../../shared/models/resilient-model.ts';
import { traceLines } from '../../../shared/cli/commands/inspect.ts';
import { readSession } from '../../../shared/recorder/store-sink.ts';
import type { ModelEntry } from '../../../shared/recorder/trace.ts';
import { inspectRun } from '../../../shared/recorder/views.ts';
import type { EngineFixture } from '../../support/engine-fixture.ts';
import { fromOpenAI, type Policy } from './support/conversation.ts';
import {
  openAIServer,
  toolUseFailed,
  type ScriptedServer,
  type ServerReply,
} from './support/wire-servers.ts';
import {
  expectGateBehaved,
  isSubmitTurn,
  runWorkflow,
  workflowFixture,
  workflowPolicy,
} from './support/workflow.ts';
import { oneTurn } from './support/turn.ts';

let server: ScriptedServer | undefined;
let fixture: EngineFixture | undefined;
afterEach(async () => {
  await server?.close();
  await fixture?.cleanup();
  server = undefined;
  fixture = undefined;
});

const TOOLS: StreamOptions = {
  toolSpecs: [
    { name: 'fetch_items', description: 'fetch' },
    { name: 'submit_action', description: 'submit' },
    { name: 'finish_batch', description: 'finish' },
  ],
};

/** Time that passes only when the provider sleeps: waits are recorded, never spent. */
function fakeTime(start = Date.parse('2025-01-01T00:00:00Z')) {
  const slept: number[] = [];
  let now = start;
  return {
    slept,
    resilience: {
      sleep: async (ms: number) => {
        slept.push(ms);
        now += ms;
      },
      now: () => now,
      random: () => 1,
      baseDelayMs: 100,
    } satisfies ModelFactoryOptions['resilience'],
  };
}

async function groqModel(
  local: ScriptedServer,
  events: ModelEvent[],
  resilience: ModelFactoryOptions['resilience'] = {},
): Promise<Model> {
  const factory = modelFactory(
    {
      HANDOFF_MODEL_PROVIDER: 'groq',
      GROQ_API_KEY: 'gsk_local_test',
      GROQ_BASE_URL: `${local.url}/openai/v1`,
    },
    { resilience },
  );
  return factory('primary', { onEvent: (e) => events.push(e) });
}

const turn = (model: Model) => oneTurn(model, TOOLS);

function scripted(replies: (ServerReply | undefined)[], fallback: Policy = () => ({ text: 'done' })) {
  return openAIServer({ policy: fallback, intercept: (n) => replies[n - 1] });
}

const SLIPPED =
  '<function=submit_action>{"item_id": "m1", "action": "archive", "confidence": 0.9"}</function>';

describe('groq: a tool call the endpoint refused (tool_use_failed)', () => {
  it('repairs failed_generation and carries on with that turn: one request, no re-sample, the repair recorded', async () => {
    server = await scripted([toolUseFailed(SLIPPED)]);
    const events: ModelEvent[] = [];
    const model = await groqModel(server, events);

    const result = await turn(model);

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe('/openai/v1/chat/completions');
    expect(server.requests[0]!.body.model).toBe('llama-3.3-70b-versatile');
    expect(result.stopReason).toBe('toolUse');
    expect(result.message.content).toMatchObject([
      {
        type: 'toolUseBlock',
        name: 'submit_action',
        input: { item_id: 'm1', action: 'archive', confidence: 0.9 },
      },
    ]);
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'repaired',
        provider: 'groq',
        source: 'failed_generation',
        tools: ['submit_action'],
        fixes: ['<function=…> tag', 'stray quote after a number'],
        before: SLIPPED,
      }),
    ]);
  });

  it('repairs the same rejection when it arrives inside the stream (event: error)', async () => {
    server = await scripted([
      {
        streamError: {
          error: {
            message:
              "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
            type: 'invalid_request_error',
            code: 'tool_use_failed',
            failed_generation:
              '[{"name": "fetch_items", "parameters": {}}, {"name": "finish_batch", "parameters": {},}]',
            status_code: 400,
          },
        },
      },
    ]);
    const events: ModelEvent[] = [];

    const result = await turn(await groqModel(server, events));

    expect(server.requests).toHaveLength(1);
    expect(result.message.content.map((b) => (b.type === 'toolUseBlock' ? b.name : b.type))).toEqual([
      'fetch_items',
      'finish_batch',
    ]);
    expect(events).toMatchObject([{ kind: 'repaired', fixes: ['trailing comma'] }]);
  });

  it('re-samples what cannot be repaired, a bounded number of times, then fails with one clear error', async () => {
    const unreadable = toolUseFailed(
      'Tool use failed: JSON does not match the expected schema for tool calls',
    );
    server = await scripted([unreadable, unreadable, unreadable, unreadable, unreadable]);
    const events: ModelEvent[] = [];
    const model = await groqModel(server, events, { maxResamples: 2 });

    const error = await turn(model).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderGaveUpError);
    expect((error as Error).message).toBe(
      "groq: Gave up: the model's tool call could not be repaired after 3 samples (no tool call to recover): Tool use failed: JSON does not match the expected schema for tool calls",
    );
    expect(server.requests).toHaveLength(3);
    expect(events.map((e) => [e.kind, 'reason' in e ? e.reason : undefined])).toEqual([
      ['retried', 'unrepairable_tool_call'],
      ['retried', 'unrepairable_tool_call'],
      ['gave_up', 'unrepairable_tool_call'],
    ]);
  });

  it('re-samples a call to a tool that is not on offer, then takes the good turn', async () => {
    server = await scripted([toolUseFailed('<function=delete_everything>{}</function>')], () => ({
      toolCalls: [{ name: 'fetch_items', input: {} }],
    }));
    const events: ModelEvent[] = [];

    const result = await turn(await groqModel(server, events));

    expect(server.requests).toHaveLength(2);
    expect(result.message.content).toMatchObject([{ type: 'toolUseBlock', name: 'fetch_items' }]);
    expect(events).toMatchObject([
      { kind: 'retried', reason: 'unrepairable_tool_call', attempt: 1, waitMs: 0 },
    ]);
  });
});

describe('groq: throttling and server errors', () => {
  const rateLimited = (retryAfter: string): ServerReply => ({
    status: 429,
    headers: { 'retry-after': retryAfter },
    body: { error: { message: 'Rate limit reached for model', type: 'tokens', code: 'rate_limit_exceeded' } },
  });

  it('waits as Retry-After (seconds) asks on a 429, then succeeds', async () => {
    server = await scripted([rateLimited('2')]);
    const time = fakeTime();
    const events: ModelEvent[] = [];

    const result = await turn(await groqModel(server, events, time.resilience));

    expect(result.message.content).toMatchObject([{ type: 'textBlock', text: 'done' }]);
    expect(time.slept).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
    expect(events).toMatchObject([
      { kind: 'retried', reason: 'throttled', status: 429, attempt: 1, waitMs: 2000, retryAfter: true },
    ]);
    expect(events[0]!.detail).toBe('HTTP 429 (throttled); retrying in 2 s as Retry-After asks');
  });

  it('honours Retry-After as an HTTP date against the injected clock', async () => {
    server = await scripted([rateLimited('Wed, 01 Jan 2025 00:00:03 GMT'), rateLimited('1.5')]);
    const time = fakeTime(Date.parse('2025-01-01T00:00:00Z'));

    await turn(await groqModel(server, [], time.resilience));

    expect(time.slept).toEqual([3000, 1500]);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up at once when Retry-After asks for more than the wait budget left', async () => {
    server = await scripted([rateLimited('120')]);
    const time = fakeTime();
    const events: ModelEvent[] = [];
    const model = await groqModel(server, events, { ...time.resilience, maxTotalWaitMs: 30_000 });

    const error = await turn(model).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderGaveUpError);
    expect((error as Error).message).toBe(
      'groq: Gave up after the endpoint asked to wait 120 s, more than the 30 s left of 30 s, 0 s waited: HTTP 429 (throttled)',
    );
    expect(time.slept).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(events).toMatchObject([{ kind: 'gave_up', reason: 'throttled', attempts: 1, status: 429 }]);
  });

  it('retries 5xx with bounded exponential backoff, then fails with the status', async () => {
    const unavailable: ServerReply = {
      status: 503,
      body: { error: { message: 'Service Unavailable', type: 'internal_server_error' } },
    };
    server = await scripted([unavailable, unavailable, unavailable, unavailable, unavailable]);
    const time = fakeTime();
    const events: ModelEvent[] = [];
    const model = await groqModel(server, events, { ...time.resilience, maxAttempts: 3 });

    const error = await turn(model).catch((e: unknown) => e);

    expect((error as Error).message).toBe(
      'groq: Gave up after 3 requests, 0.3 s waited: HTTP 503 (server_error)',
    );
    expect(server.requests).toHaveLength(3);
    expect(time.slept).toEqual([100, 200]);
    expect(events.map((e) => e.kind)).toEqual(['retried', 'retried', 'gave_up']);
    expect(events.at(-1)).toMatchObject({ kind: 'gave_up', attempts: 3, waitedMs: 300, status: 503 });
  });

  it('carries on after one 500', async () => {
    server = await scripted([
      { status: 500, body: { error: { message: 'oops', type: 'internal_server_error' } } },
    ]);
    const time = fakeTime();

    const result = await turn(await groqModel(server, [], time.resilience));

    expect(result.message.content).toMatchObject([{ type: 'textBlock', text: 'done' }]);
    expect(time.slept).toEqual([100]);
  });
});

/** The page of submit_action calls as llama writes them when Groq refuses them, one with a slip. */
function asFailedGeneration(turn: { toolCalls: { name: string; input: Record<string, unknown> }[] }): string {
  return turn.toolCalls
    .map((call) => {
      const args = JSON.stringify(call.input).replace(/"confidence":(0\.92)/, '"confidence": $1"');
      return `<function=${call.name}>${args}</function>`;
    })
    .join('\n');
}

describe('groq: a whole workflow run', () => {
  it('carries the run on through a refused page of calls: repaired, not re-sampled, the gate still in charge', async () => {
    const policy = workflowPolicy();
    let refused = 0;
    const local = await openAIServer({
      policy,
      intercept: (_n, input) => {
        const planned = policy(input);
        if (!isSubmitTurn(planned) || refused > 0) return undefined;
        refused += 1;
        return toolUseFailed(asFailedGeneration(planned));
      },
    });
    server = local;
    const events: ModelEvent[] = [];
    const model = await groqModel(local, events);
    fixture = await workflowFixture(() => model);

    const run = await runWorkflow(fixture);

    await expectGateBehaved(fixture, run); // 0.92" was read as 0.92: acted, not deferred as unreadable
    expect(refused).toBe(1);
    const submitTurns = local.requests.filter((r) => isSubmitTurn(policy(fromOpenAI(r.body))));
    expect(submitTurns).toHaveLength(1); // the refused request was the only one for that turn
    expect(local.requests).toHaveLength(6); // four executor turns, a reply draft for each item set aside
    expect(events).toMatchObject([
      {
        kind: 'repaired',
        source: 'failed_generation',
        tools: ['submit_action', 'submit_action', 'submit_action'],
        fixes: ['<function=…> tag', 'stray quote after a number'],
      },
    ]);
  });

  it('fails the run with one clear line, having done nothing, when the calls cannot be repaired', async () => {
    const policy = workflowPolicy();
    const local = await openAIServer({
      policy,
      intercept: (_n, input) => (isSubmitTurn(policy(input)) ? toolUseFailed('') : undefined),
    });
    server = local;
    const model = await groqModel(local, [], { maxResamples: 1 });
    fixture = await workflowFixture(() => model);

    const run = await runWorkflow(fixture);

    expect(run.status).toBe('failed');
    expect(run.error).toContain(
      'could not be repaired after 2 samples (the endpoint handed back no generation)',
    );
    expect(await fixture.inbox()).toHaveLength(3);
    expect(await fixture.folder('.Archive')).toHaveLength(0);
  });
});

describe('groq: the repairs of a run, on the run', () => {
  it('keeps every repair and retry in the run’s stored trace, for handoff inspect and its --json', async () => {
    const policy = workflowPolicy();
    let refused = 0;
    const local = await openAIServer({
      policy,
      intercept: (n, input) => {
        if (n === 1)
          return {
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: { message: 'Rate limit reached', type: 'tokens', code: 'rate_limit_exceeded' } },
          };
        const planned = policy(input);
        if (!isSubmitTurn(planned) || refused > 0) return undefined;
        refused += 1;
        return toolUseFailed(asFailedGeneration(planned));
      },
    });
    server = local;
    fixture = await workflowFixture(() => {
      throw new Error('the run builds its model through the factory');
    });
    // The real factory, so the run's own listener reaches the model.
    fixture.deps.models = modelFactory(
      {
        HANDOFF_MODEL_PROVIDER: 'groq',
        GROQ_API_KEY: 'gsk_local_test',
        GROQ_BASE_URL: `${local.url}/openai/v1`,
      },
      { resilience: fakeTime().resilience },
    );

    const run = await runWorkflow(fixture);

    await expectGateBehaved(fixture, run);
    const models = (await readSession(fixture.store, run.id))!.entries.filter(
      (e): e is ModelEntry => e.kind === 'model',
    );
    expect(models[0]!.retries).toEqual([
      {
        reason: 'throttled',
        attempt: 1,
        wait_ms: 1000,
        retry_after: true,
        status: 429,
        detail: 'HTTP 429 (throttled); retrying in 1 s as Retry-After asks',
      },
    ]);
    const repaired = models.filter((m) => m.repairs);
    expect(repaired).toHaveLength(1);
    expect(repaired[0]!.repairs).toEqual([
      {
        source: 'failed_generation',
        tools: ['submit_action', 'submit_action', 'submit_action'],
        fixes: ['<function=…> tag', 'stray quote after a number'],
        before: expect.stringContaining('"confidence": 0.92"'),
        after: expect.stringContaining('"confidence":0.92'),
        detail: expect.stringMatching(/^Repaired the tool call the endpoint refused/),
      },
    ]);
    expect(
      models.filter((m) => m !== models[0] && m !== repaired[0]).every((m) => !m.repairs && !m.retries),
    ).toBe(true);

    const trace = await inspectRun(fixture.store, run.id);
    expect(trace.entries).toContainEqual(
      expect.objectContaining({ kind: 'model', repairs: repaired[0]!.repairs }),
    );
    const lines = traceLines(trace).map((line) => line.trim());
    expect(lines).toContain('retried: HTTP 429 (throttled); retrying in 1 s as Retry-After asks');
    expect(lines).toContain(
      'repaired tool-call JSON (<function=…> tag, stray quote after a number) in submit_action, submit_action, submit_action, from the generation the endpoint refused',
    );
  });

  it('records the repaired turn’s cost as unknown, not $0: the endpoint reported no usage for it', async () => {
    const policy = workflowPolicy();
    let refused = 0;
    const local = await openAIServer({
      policy,
      intercept: (_n, input) => {
        const planned = policy(input);
        if (!isSubmitTurn(planned) || refused > 0) return undefined;
        refused += 1;
        return toolUseFailed(asFailedGeneration(planned));
      },
    });
    server = local;
    fixture = await workflowFixture(() => {
      throw new Error('the run builds its model through the factory');
    });
    fixture.deps.models = modelFactory(
      {
        HANDOFF_MODEL_PROVIDER: 'groq',
        GROQ_API_KEY: 'gsk_local_test',
        GROQ_BASE_URL: `${local.url}/openai/v1`,
      },
      { resilience: fakeTime().resilience },
    );

    const run = await runWorkflow(fixture);

    const models = (await readSession(fixture.store, run.id))!.entries.filter(
      (e): e is ModelEntry => e.kind === 'model',
    );
    const repaired = models.filter((m) => m.repairs);
    expect(repaired).toMatchObject([{ usage_unknown: true, cost_usd: null }]);
    const others = models.filter((m) => !m.repairs);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((m) => m.usage_unknown === undefined && (m.cost_usd ?? 0) > 0)).toBe(true);
    const trace = await inspectRun(fixture.store, run.id);
    expect(trace.totals).toMatchObject({ cost_usd: null, unknown_cost_calls: 1 });
    expect(trace.totals.known_cost_usd).toBeGreaterThan(0);
  });
});
