/**
 * Handoff's gate inside your own Strands agent, asking at a terminal prompt.
 *
 *   npm run build && npx tsx examples/embedded-agent.ts
 *
 * The agent has two tools of yours: `create_issue` (reversible) and `delete_branch`
 * (irreversible). A sure issue is filed alone; an unsure one and the deletion are asked
 * about together, once; type `approve` or `skip` for each. No answer within
 * ASK_TIMEOUT_MS (default 60 s) skips them: the agent is told it was not allowed.
 *
 * The model here is scripted so the example runs offline; put yours in its place.
 */
import { createInterface } from 'node:readline';
import {
  Agent,
  Model,
  tool,
  type BaseModelConfig,
  type Message,
  type ModelStreamEvent,
} from '@strands-agents/sdk';
import { z } from 'zod';
import { embeddedGate, gateFields, type Ask } from 'handoff/embedded';

/** Stands in for your model: one turn of three tool calls, then a summary of what came back. */
class ScriptedModel extends Model<BaseModelConfig> {
  private config: BaseModelConfig = { modelId: 'scripted' };
  updateConfig(config: BaseModelConfig): void {
    this.config = { ...this.config, ...config };
  }
  getConfig(): BaseModelConfig {
    return this.config;
  }
  async *stream(messages: Message[]): AsyncIterable<ModelStreamEvent> {
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    const calls = [
      {
        name: 'create_issue',
        input: { title: 'Crash on login', confidence: 0.92, reasoning: 'stack trace attached' },
      },
      {
        name: 'create_issue',
        input: { title: 'Make it faster?', confidence: 0.4, reasoning: 'vague; maybe a wish' },
      },
      {
        name: 'delete_branch',
        input: { branch: 'old-experiment', confidence: 0.97, reasoning: 'merged a year ago' },
      },
    ];
    if (messages.length === 1) {
      for (const [i, call] of calls.entries()) {
        yield {
          type: 'modelContentBlockStartEvent',
          start: { type: 'toolUseStart', name: call.name, toolUseId: `call-${i}` },
        };
        yield {
          type: 'modelContentBlockDeltaEvent',
          delta: { type: 'toolUseInputDelta', input: JSON.stringify(call.input) },
        };
        yield { type: 'modelContentBlockStopEvent' };
      }
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    yield { type: 'modelContentBlockStartEvent' };
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: 'Done.' } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}

// Your tools, with your credentials: Handoff never sees them.
const token = process.env.TRACKER_TOKEN ?? 'example-token';
const bodies = { create_issue: 0, delete_branch: 0 };
const createIssue = tool({
  name: 'create_issue',
  description: 'File an issue in the tracker.',
  inputSchema: z.object({ title: z.string(), ...gateFields }),
  callback: ({ title }) => {
    bodies.create_issue += 1;
    return `filed "${title}" (authenticated: ${token.length > 0})`;
  },
});
const deleteBranch = tool({
  name: 'delete_branch',
  description: 'Delete a branch. Cannot be undone.',
  inputSchema: z.object({ branch: z.string(), ...gateFields }),
  callback: ({ branch }) => {
    bodies.delete_branch += 1;
    return `deleted ${branch}`;
  },
});

// Reaching the person: a prompt on this terminal, one line per question.
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const ask: Ask = async (questions, signal) => {
  const answers = [];
  for (const q of questions) {
    process.stdout.write(
      `\n${q.tool} ${JSON.stringify(q.input)}\n  asked because: ${q.reason}; confidence ${q.confidence}; "${q.reasoning}"\n  approve or skip? `,
    );
    const line = await lines.next();
    if (signal.aborted || line.done) break;
    answers.push({ id: q.id, action: line.value.trim() === 'approve' ? 'approve' : 'skip' });
  }
  return answers;
};

const gate = embeddedGate({
  tools: { create_issue: {}, delete_branch: { irreversible: true } },
  threshold: 0.7,
  ask,
  askTimeoutMs: Number(process.env.ASK_TIMEOUT_MS ?? 60_000),
});
const agent = new Agent({
  model: new ScriptedModel(),
  tools: [createIssue, deleteBranch],
  plugins: [gate],
  printer: false,
});

await agent.invoke('Tidy up the tracker.');
process.stdout.write('\n\nWhat happened:\n');
for (const r of gate.records)
  process.stdout.write(
    `  ${r.tool}: ${r.outcome}${r.skipped_because ? ` (${r.skipped_because})` : ''}, decided by ${r.decided_by ?? 'nobody'}\n`,
  );
process.stdout.write(
  `Tool bodies run: create_issue ${bodies.create_issue}, delete_branch ${bodies.delete_branch}\n`,
);
process.exit(0);
