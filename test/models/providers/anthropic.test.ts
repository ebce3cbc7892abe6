import Anthropic from '@anthropic-ai/sdk';
import type { Model, StreamOptions } from '@strands-agents/sdk';
import { AnthropicModel } from '@strands-agents/sdk/models/anthropic';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ModelEvent } from '../../../shared/models/model-events.ts';
import { modelFactory, type ModelFactoryOptions } from '../../../shared/models/provider.ts';
import { ANTHROPIC_MAX_TOKENS } from '../../../shared/models/providers.ts';
import { ResilientModel } from '../../../shared/models/resilient-model.ts';
import type { EngineFixture } from '../../support/engine-fixture.ts';
import { anthropicServer, type ScriptedServer } from './support/wire-servers.ts';
import { expectGateBehaved, runWorkflow, workflowFixture, workflowPolicy } from './support/workflow.ts';
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
  systemPrompt: 'You sort mail.',
  toolSpecs: [
    { name: 'fetch_items', description: 'fetch', inputSchema: { type: 'object', properties: {} } },
    { name: 'submit_action', description: 'submit', inputSchema: { type: 'object', properties: {} } },
  ],
};

function anthropicModel(
  local: ScriptedServer,
  events: ModelEvent[] = [],
  resilience: ModelFactoryOptions['resilience'] = {},
): Promise<Model> {
  return modelFactory(
    {
      HANDOFF_MODEL_PROVIDER: 'anthropic',
      HANDOFF_MODEL_ID: 'claude-primary-test',
      HANDOFF_FALLBACK_MODEL_ID: 'claude-cheap-test',
      ANTHROPIC_API_KEY: 'sk-ant-local-test',
      ANTHROPIC_BASE_URL: local.url,
    },
    { resilience },
  )('primary', { onEvent: (e) => events.push(e) });
}

const turn = (model: Model) => oneTurn(model, TOOLS);

describe('anthropic', () => {
  it('streams a text turn (message_start … message_stop) and reports usage from message_start and message_delta', async () => {
    server = await anthropicServer({ policy: () => ({ text: 'All quiet in the inbox.' }) });

    const result = await turn(await anthropicModel(server));

    expect(result.message.content).toMatchObject([{ type: 'textBlock', text: 'All quiet in the inbox.' }]);
    expect(result.stopReason).toBe('endTurn');
    expect(result.metadata?.usage).toMatchObject({
      inputTokens: server.usage[0]!.input,
      outputTokens: server.usage[0]!.output,
    });
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(request!.headers['x-api-key']).toBe('sk-ant-local-test');
    expect(request!.body).toMatchObject({
      model: 'claude-primary-test',
      max_tokens: ANTHROPIC_MAX_TOKENS,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }],
    });
    expect(request!.body.system).toBe('You sort mail.');
    expect((request!.body.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'fetch_items',
      'submit_action',
    ]);
  });

  it('assembles tool_use blocks from input_json_delta pieces, several in one turn', async () => {
    const calls = [
      {
        name: 'submit_action',
        input: { item_id: 'a', action: 'archive', confidence: 0.91, reasoning: 'a "digest"' },
      },
      { name: 'fetch_items', input: {} },
    ];
    server = await anthropicServer({ policy: () => ({ toolCalls: calls }) });

    const result = await turn(await anthropicModel(server));

    expect(result.stopReason).toBe('toolUse');
    expect(
      result.message.content.map((b) => (b.type === 'toolUseBlock' ? [b.name, b.input] : b.type)),
    ).toEqual(calls.map((c) => [c.name, c.input]));
  });

  it('repairs a slipped input_json_delta and retries a 529 overloaded answer', async () => {
    const events: ModelEvent[] = [];
    const slept: number[] = [];
    server = await anthropicServer({
      policy: () => ({ toolCalls: [{ name: 'submit_action', input: {} }] }),
      intercept: (n) =>
        n === 1
          ? {
              status: 529,
              body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
            }
          : {
              turn: { toolCalls: [{ name: 'submit_action', input: {} }] },
              rawArguments: ['{"item_id": "x", "confidence": 0.8,}'],
            },
    });

    const result = await turn(
      await anthropicModel(server, events, {
        sleep: async (ms) => void slept.push(ms),
        random: () => 0,
        baseDelayMs: 400,
      }),
    );

    expect(result.message.content).toMatchObject([
      { type: 'toolUseBlock', input: { item_id: 'x', confidence: 0.8 } },
    ]);
    expect(slept).toEqual([200]);
    expect(events.map((e) => [e.kind, 'reason' in e ? e.reason : e.source])).toEqual([
      ['retried', 'server_error'],
      ['repaired', 'stream'],
    ]);
  });

  it("serves the raw events: the SDK's own MessageStream throws on the slip before it could be repaired", async () => {
    server = await anthropicServer({
      policy: () => ({ toolCalls: [{ name: 'submit_action', input: {} }] }),
      intercept: () => ({
        turn: { toolCalls: [{ name: 'submit_action', input: {} }] },
        rawArguments: ['{"a": 0.5,}'],
      }),
    });
    const bare = new AnthropicModel({
      modelId: 'claude-primary-test',
      maxTokens: 100,
      client: new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
    });
    const wrapped = new ResilientModel(bare);

    await expect(turn(wrapped)).rejects.toThrow(/JSON/);
    const repaired = await turn(await anthropicModel(server));
    expect(repaired.message.content).toMatchObject([{ type: 'toolUseBlock', input: { a: 0.5 } }]);
  });

  it('runs a whole workflow on the primary model: the gate acts on one, asks about two', async () => {
    const local = await anthropicServer({ policy: workflowPolicy() });
    server = local;
    const model = await anthropicModel(local);
    fixture = await workflowFixture(() => model);

    const run = await runWorkflow(fixture);

    await expectGateBehaved(fixture, run);
    expect(local.requests).toHaveLength(6); // four executor turns, a reply draft for each item set aside
    expect(new Set(local.requests.map((r) => r.body.model))).toEqual(new Set(['claude-primary-test']));
    const last = local.requests.at(-1)!.body.messages as { role: string; content: { type: string }[] }[];
    expect(last.at(-1)!.content.every((b) => b.type === 'tool_result')).toBe(true);
  });
});
