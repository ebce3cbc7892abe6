import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  ThrottlingException,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import type { Model, StreamOptions } from '@strands-agents/sdk';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ModelEvent } from '../../../shared/models/model-events.ts';
import { modelFactory, type ModelFactoryOptions } from '../../../shared/models/provider.ts';
import type { PlannedTurn } from '../../../shared/models/turn-model.ts';
import type { EngineFixture } from '../../support/engine-fixture.ts';
import { fromBedrock, type Policy } from './support/conversation.ts';
import { expectGateBehaved, runWorkflow, workflowFixture, workflowPolicy } from './support/workflow.ts';
import { oneTurn } from './support/turn.ts';

const bedrock = mockClient(BedrockRuntimeClient);
let fixture: EngineFixture | undefined;
beforeEach(() => {
  bedrock.reset();
});
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** ConverseStream events for a planned turn, as Bedrock streams them; `raw` replaces call i's input text. */
async function* converseEvents(
  turn: PlannedTurn,
  raw: (string | undefined)[] = [],
): AsyncGenerator<ConverseStreamOutput> {
  yield { messageStart: { role: 'assistant' } };
  let outputChars = 0;
  if ('text' in turn) {
    // Bedrock opens a text block with its first delta: no contentBlockStart.
    yield { contentBlockDelta: { contentBlockIndex: 0, delta: { text: turn.text } } };
    yield { contentBlockStop: { contentBlockIndex: 0 } };
    outputChars = turn.text.length;
  } else {
    let index = 0;
    for (const call of turn.toolCalls) {
      const input = raw[index] ?? JSON.stringify(call.input);
      outputChars += input.length;
      yield {
        contentBlockStart: {
          contentBlockIndex: index,
          start: {
            toolUse: {
              toolUseId: `tooluse_${index}_${Math.random().toString(36).slice(2, 8)}`,
              name: call.name,
            },
          },
        },
      };
      yield { contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input } } } };
      yield { contentBlockStop: { contentBlockIndex: index } };
      index += 1;
    }
  }
  yield { messageStop: { stopReason: 'text' in turn ? 'end_turn' : 'tool_use' } };
  yield {
    metadata: {
      usage: {
        inputTokens: 120,
        outputTokens: Math.ceil(outputChars / 4),
        totalTokens: 120 + Math.ceil(outputChars / 4),
      },
      metrics: { latencyMs: 5 },
    },
  };
}

function serve(policy: Policy, raw: (string | undefined)[] = []) {
  bedrock.on(ConverseStreamCommand).callsFake((input: ConverseStreamCommandInput) => ({
    $metadata: { httpStatusCode: 200 },
    stream: converseEvents(policy(fromBedrock(input as unknown as Record<string, unknown>)), raw),
  }));
}

function bedrockModel(
  events: ModelEvent[] = [],
  resilience: ModelFactoryOptions['resilience'] = {},
): Promise<Model> {
  return modelFactory(
    {
      HANDOFF_MODEL_PROVIDER: 'bedrock',
      HANDOFF_MODEL_ID: 'us.anthropic.claude-primary-test',
      HANDOFF_FALLBACK_MODEL_ID: 'us.amazon.nova-cheap-test',
      AWS_REGION: 'eu-west-1',
    },
    { resilience },
  )('primary', { onEvent: (e) => events.push(e) });
}

const TOOLS: StreamOptions = {
  systemPrompt: 'You sort mail.',
  toolSpecs: [
    { name: 'submit_action', description: 'submit', inputSchema: { type: 'object', properties: {} } },
  ],
};

const turn = (model: Model) => oneTurn(model, TOOLS);

describe('bedrock (ConverseStream, mocked at the command)', () => {
  it('sends one ConverseStreamCommand with the model, system prompt and tool config, and reads the stream', async () => {
    serve(() => ({ toolCalls: [{ name: 'submit_action', input: { item_id: 'a', confidence: 0.8 } }] }));

    const result = await turn(await bedrockModel());
    bedrock.reset();
    serve(() => ({ text: 'Nothing left.' }));
    const text = await turn(await bedrockModel());

    expect(result.message.content).toMatchObject([
      { type: 'toolUseBlock', name: 'submit_action', input: { item_id: 'a', confidence: 0.8 } },
    ]);
    expect(result.metadata?.usage).toMatchObject({ inputTokens: 120 });
    expect(text.message.content).toMatchObject([{ type: 'textBlock', text: 'Nothing left.' }]);
    expect(text.stopReason).toBe('endTurn');
    const calls = bedrock.commandCalls(ConverseStreamCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input).toMatchObject({
      modelId: 'us.anthropic.claude-primary-test',
      system: [{ text: 'You sort mail.' }],
      messages: [{ role: 'user', content: [{ text: 'Go' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'submit_action', description: 'submit' } }] },
    });
    expect(await bedrock.send.firstCall.thisValue.config.region()).toBe('eu-west-1');
  });

  it('retries a ThrottlingException with backoff and repairs a slipped toolUse input', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .rejectsOnce(
        new ThrottlingException({ message: 'Too many requests', $metadata: { httpStatusCode: 429 } }),
      )
      .callsFake(() => ({
        $metadata: { httpStatusCode: 200 },
        stream: converseEvents({ toolCalls: [{ name: 'submit_action', input: {} }] }, [
          "{'item_id': 'a', 'confidence': 0.7}",
        ]),
      }));
    const events: ModelEvent[] = [];
    const slept: number[] = [];

    const result = await turn(
      await bedrockModel(events, {
        sleep: async (ms) => void slept.push(ms),
        random: () => 1,
        baseDelayMs: 250,
      }),
    );

    expect(result.message.content).toMatchObject([
      { type: 'toolUseBlock', input: { item_id: 'a', confidence: 0.7 } },
    ]);
    expect(bedrock.commandCalls(ConverseStreamCommand)).toHaveLength(2);
    expect(slept).toEqual([250]);
    expect(events).toMatchObject([
      { kind: 'retried', provider: 'bedrock', reason: 'throttled', status: 429 },
      { kind: 'repaired', source: 'stream', fixes: ['single quotes'] },
    ]);
  });

  it('runs a whole workflow: the gate acts on one, asks about two, touches nothing else', async () => {
    serve(workflowPolicy());
    const model = await bedrockModel();
    fixture = await workflowFixture(() => model);

    const run = await runWorkflow(fixture);

    await expectGateBehaved(fixture, run);
    const calls = bedrock.commandCalls(ConverseStreamCommand);
    expect(calls).toHaveLength(6); // four executor turns, a reply draft for each item set aside
    const last = calls.at(-1)!.args[0].input;
    expect(last.toolConfig?.tools?.map((t) => t.toolSpec?.name)).toEqual([
      'recall_rules',
      'fetch_items',
      'read_item',
      'submit_action',
      'finish_batch',
    ]);
    expect(last.messages?.at(-1)?.content?.every((b) => b.toolResult !== undefined)).toBe(true);
  });
});
