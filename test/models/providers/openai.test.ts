import type { Model, StreamOptions } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ModelEvent } from '../../../shared/models/model-events.ts';
import { modelFactory } from '../../../shared/models/provider.ts';
import { createProviderModel } from '../../../shared/models/providers.ts';
import type { EngineFixture } from '../../support/engine-fixture.ts';
import type { LocalServer } from './support/http-server.ts';
import { openAIServer, type ScriptedServer } from './support/wire-servers.ts';
import {
  expectCompleted,
  expectGateBehaved,
  runWorkflow,
  SURE_PROPOSALS,
  workflowFixture,
  workflowPolicy,
} from './support/workflow.ts';
import { oneTurn } from './support/turn.ts';

let server: ScriptedServer | LocalServer | undefined;
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

function openaiEnv(url: string) {
  return {
    HANDOFF_MODEL_PROVIDER: 'openai',
    HANDOFF_MODEL_ID: 'local-llama',
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: 'sk-local-test',
  };
}

const turn = (model: Model, options: StreamOptions = TOOLS) => oneTurn(model, options);

describe('openai (any OpenAI-compatible endpoint)', () => {
  it('streams a text turn and reads usage from the final chunk (stream_options.include_usage)', async () => {
    const local = await openAIServer({ policy: () => ({ text: 'Nothing to file today, all quiet.' }) });
    server = local;
    const model = await modelFactory(openaiEnv(local.url))('primary');

    const result = await turn(model);

    expect(result.stopReason).toBe('endTurn');
    expect(result.message.content).toMatchObject([
      { type: 'textBlock', text: 'Nothing to file today, all quiet.' },
    ]);
    expect(result.metadata?.usage).toEqual({
      inputTokens: local.usage[0]!.input,
      outputTokens: local.usage[0]!.output,
      totalTokens: local.usage[0]!.input + local.usage[0]!.output,
    });
    const [request] = local.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request!.headers.authorization).toBe('Bearer sk-local-test');
    expect(request!.body).toMatchObject({
      model: 'local-llama',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You sort mail.' },
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      ],
    });
    expect((request!.body.tools as unknown[]).length).toBe(2);
  });

  it('keeps every parallel tool call streamed as tool_calls deltas (the bare SDK adapter keeps only the last)', async () => {
    const calls = [
      { name: 'submit_action', input: { item_id: 'a', action: 'archive', confidence: 0.9 } },
      { name: 'submit_action', input: { item_id: 'b', action: 'file_ticket', confidence: 0.4 } },
      { name: 'fetch_items', input: {} },
    ];
    const local = await openAIServer({ policy: () => ({ toolCalls: calls }) });
    server = local;
    const plan = {
      provider: 'openai',
      modelId: 'm',
      apiKey: 'k',
      baseURL: local.url,
      region: undefined,
    } as const;

    const resilient = await turn(await modelFactory(openaiEnv(local.url))('primary'));
    const bare = await turn(await createProviderModel(plan));

    expect(resilient.stopReason).toBe('toolUse');
    expect(
      resilient.message.content.map((b) => (b.type === 'toolUseBlock' ? [b.name, b.input] : b.type)),
    ).toEqual(calls.map((c) => [c.name, c.input]));
    const ids = resilient.message.content.map((b) => (b.type === 'toolUseBlock' ? b.toolUseId : ''));
    expect(new Set(ids).size).toBe(3);
    expect(bare.message.content).toHaveLength(1); // why the normaliser exists
  });

  it('repairs malformed arguments inside a successful stream and records the repair', async () => {
    const local = await openAIServer({
      policy: () => ({ toolCalls: [{ name: 'submit_action', input: {} }] }),
      intercept: () => ({
        turn: { toolCalls: [{ name: 'submit_action', input: {} }] },
        rawArguments: [
          '{"item_id": "m1", "action": "archive", "confidence": 0.9", "reasoning": \'a digest\',}',
        ],
      }),
    });
    server = local;
    const events: ModelEvent[] = [];
    const model = await modelFactory(openaiEnv(local.url))('primary', { onEvent: (e) => events.push(e) });

    const result = await turn(model);

    expect(result.message.content).toMatchObject([
      {
        type: 'toolUseBlock',
        name: 'submit_action',
        input: { item_id: 'm1', action: 'archive', confidence: 0.9, reasoning: 'a digest' },
      },
    ]);
    expect(local.requests).toHaveLength(1);
    expect(events).toMatchObject([
      {
        kind: 'repaired',
        provider: 'openai',
        modelId: 'local-llama',
        source: 'stream',
        tools: ['submit_action'],
        fixes: expect.arrayContaining(['stray quote after a number', 'trailing comma', 'single quotes']),
      },
    ]);
  });

  it('runs a whole workflow: acts on the sure item, sets two aside untouched, asks once', async () => {
    const local = await openAIServer({ policy: workflowPolicy() });
    server = local;
    const model = await modelFactory(openaiEnv(local.url))('primary');
    fixture = await workflowFixture(() => model);

    const run = await runWorkflow(fixture);

    await expectGateBehaved(fixture, run);
    // fetch → submit the page → fetch (empty) → finish_batch: four turns, four requests; and
    // one reply draft written for each of the two items set aside (draft_reply is an option)
    expect(local.requests).toHaveLength(6);
    const last = local.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    expect(last.filter((m) => m.role === 'tool').length).toBeGreaterThan(0);
  });

  it('runs a whole workflow to completion when every item is sure', async () => {
    const local = await openAIServer({ policy: workflowPolicy(SURE_PROPOSALS) });
    server = local;
    const model = await modelFactory(openaiEnv(local.url))('primary');
    fixture = await workflowFixture(() => model, SURE_PROPOSALS);

    await expectCompleted(fixture, await runWorkflow(fixture));
  });
});
