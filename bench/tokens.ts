/**
 * Token benchmark: tokens are the budget. One run of the inbox-triage workflow over a
 * fixed 50-message batch (bench/generate-mail.ts, seed 0x5eed2025), through the REAL
 * engine (startRun, the executor's paged window, the gate), once per model:
 *
 * - offline: the offline model; tokens are an ESTIMATE, characters / 4 of what the SDK
 *   hands the model (messages, system prompt, tool specs) and of what it answers.
 * - openai wire / anthropic wire: the openai and anthropic providers (the SDK's own
 *   model classes inside the resilient provider) against a local server on 127.0.0.1
 *   that speaks that wire format and plays the offline model's judgement. Tokens are the
 *   usage the provider REPORTED, i.e. the SERVER'S count: characters / 4 of the request's
 *   messages, system and tools (input), and of the text or tool arguments it streams
 *   (output). No real model is called; a real tokenizer would count differently.
 *
 * Tools take item ids and return compact views (sender, subject, a 280-character snippet);
 * the full text stays in the run context. The last line compares an item's compact view
 * with the same view carrying the text.
 *
 *   npm run bench:tokens               # prints the table, writes bench/results/tokens.{json,md}
 *   npm run bench:tokens -- --dry-run  # prints only
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  Model,
  type BaseModelConfig,
  type Message,
  type ModelStreamEvent,
  type StreamOptions,
} from '@strands-agents/sdk';
import { format, resolveConfig } from 'prettier';
import { loadEnv } from '../shared/config/env.ts';
import { compactView } from '../shared/agents/executor/tools.ts';
import { OfflineModel } from '../shared/models/offline/offline-model.ts';
import { modelFactory, type ModelFactory } from '../shared/models/provider.ts';
import type { Notifier } from '../shared/notify/notifier.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { renderMessage, writeMaildir } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { openSource } from '../shared/sources/open-source.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { offlinePolicy } from '../test/models/providers/support/conversation.ts';
import {
  anthropicServer,
  openAIServer,
  type ScriptedServer,
} from '../test/models/providers/support/wire-servers.ts';
import { DEFAULT_SEED, generateInbox } from './generate-mail.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const WORKFLOW_ID = 'inbox-triage';
const MESSAGES = 50;
const CHARS_PER_TOKEN = 4;

const quietNotifier: Notifier = { notify: async () => {} };

const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
const perItem = (n: number) => Math.round((n / MESSAGES) * 10) / 10;

/** Passes a model through, counting turns, the usage it reports, and a chars/4 estimate of each request. */
class MeteredModel extends Model<BaseModelConfig> {
  turns = 0;
  reportedInput = 0;
  reportedOutput = 0;
  estimatedInput = 0;
  /** The part of the estimate that is the system prompt and the tool specs. */
  fixedInput = 0;
  maxEstimatedInput = 0;
  maxReportedInput = 0;

  constructor(readonly inner: Model) {
    super();
  }

  updateConfig(config: BaseModelConfig): void {
    this.inner.updateConfig(config);
  }

  getConfig(): BaseModelConfig {
    return this.inner.getConfig();
  }

  async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    this.turns += 1;
    const fixed =
      JSON.stringify(options?.systemPrompt ?? '').length + JSON.stringify(options?.toolSpecs ?? []).length;
    const estimate = tokens(JSON.stringify(messages).length + fixed);
    this.estimatedInput += estimate;
    this.fixedInput += tokens(fixed);
    this.maxEstimatedInput = Math.max(this.maxEstimatedInput, estimate);
    for await (const event of this.inner.stream(messages, options)) {
      if (event.type === 'modelMetadataEvent' && event.usage) {
        this.reportedInput += event.usage.inputTokens;
        this.reportedOutput += event.usage.outputTokens;
        this.maxReportedInput = Math.max(this.maxReportedInput, event.usage.inputTokens);
      }
      yield event;
    }
  }
}

interface Row {
  model: string;
  /** Where the token counts come from. */
  counted_by: string;
  status: string;
  acted: number;
  deferred: number;
  turns: number;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  input_per_item: number;
  output_per_item: number;
  total_per_item: number;
  max_input_per_turn: number;
  /** The client's own chars/4 of what the SDK handed the model, for comparison. */
  client_estimate_input_tokens: number;
  /** Of that estimate, the system prompt and tool specs (re-sent every turn). */
  system_and_tools_tokens: number;
}

type Kind = 'offline' | 'openai' | 'anthropic';

async function measure(kind: Kind): Promise<Row> {
  const root = await mkdtemp(path.join(os.tmpdir(), `handoff-tokens-${kind}-`));
  const maildir = path.join(root, 'Maildir');
  const stateDir = path.join(root, 'state');
  let server: ScriptedServer | null = null;
  try {
    await writeMaildir(maildir, generateInbox(MESSAGES, DEFAULT_SEED).messages);
    let inner: ModelFactory;
    if (kind === 'offline') inner = async () => new OfflineModel();
    else if (kind === 'openai') {
      server = await openAIServer({ policy: offlinePolicy() });
      inner = modelFactory({
        HANDOFF_MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: `${server.url}/v1`,
        HANDOFF_MODEL_ID: 'scripted-offline',
      });
    } else {
      server = await anthropicServer({ policy: offlinePolicy() });
      inner = modelFactory({
        HANDOFF_MODEL_PROVIDER: 'anthropic',
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'local',
        HANDOFF_MODEL_ID: 'scripted-offline',
      });
    }
    const meters: MeteredModel[] = [];
    const models: ModelFactory = async (role, options) => {
      const meter = new MeteredModel(await inner(role, options));
      meters.push(meter);
      return meter;
    };
    const store = new JsonFileStore(stateDir);
    const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
    const deps = engineFromEnv(env, { store, models, notifier: quietNotifier, emit: () => {} });
    await saveWorkflow(store, parseWorkflow(demoWorkflowYaml(maildir), `${WORKFLOW_ID}.yaml`));

    const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: null });
    if (run.error) throw new Error(`${kind}: the run failed: ${run.error}`);

    const sum = (f: (m: MeteredModel) => number) => meters.reduce((s, m) => s + f(m), 0);
    const max = (f: (m: MeteredModel) => number) => meters.reduce((s, m) => Math.max(s, f(m)), 0);
    const offline = kind === 'offline';
    const input = offline ? sum((m) => m.estimatedInput) : sum((m) => m.reportedInput);
    const output = sum((m) => m.reportedOutput);
    if (server) {
      const served = server.usage.reduce(
        (s, u) => ({ input: s.input + u.input, output: s.output + u.output }),
        {
          input: 0,
          output: 0,
        },
      );
      if (served.input !== input || served.output !== output)
        throw new Error(
          `${kind}: the provider reported ${input}/${output}, the server counted ${served.input}/${served.output}`,
        );
    }
    return {
      model: offline
        ? 'offline (HANDOFF_MODEL_PROVIDER=local)'
        : kind === 'openai'
          ? 'openai provider → OpenAI-compatible server'
          : 'anthropic provider → Anthropic-wire server',
      counted_by: offline ? 'estimate: chars/4 (client)' : "provider's reported usage (server: chars/4)",
      status: run.status,
      acted: run.counts.acted,
      deferred: run.counts.deferred,
      turns: sum((m) => m.turns),
      requests: server ? server.requests.length : sum((m) => m.turns),
      input_tokens: input,
      output_tokens: output,
      input_per_item: perItem(input),
      output_per_item: perItem(output),
      total_per_item: perItem(input + output),
      max_input_per_turn: offline ? max((m) => m.maxEstimatedInput) : max((m) => m.maxReportedInput),
      client_estimate_input_tokens: sum((m) => m.estimatedInput),
      system_and_tools_tokens: sum((m) => m.fixedInput),
    };
  } finally {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  }
}

function table(rows: Row[]): string {
  const head = [
    'model',
    'tokens counted by',
    'turns',
    'input',
    'output',
    'input / item',
    'output / item',
    'total / item',
    'max input / turn',
    'acted',
    'asked',
  ];
  const lines = rows.map((r) =>
    [
      r.model,
      r.counted_by,
      r.turns,
      r.input_tokens,
      r.output_tokens,
      r.input_per_item.toFixed(1),
      r.output_per_item.toFixed(1),
      r.total_per_item.toFixed(1),
      r.max_input_per_turn,
      r.acted,
      r.deferred,
    ].map(String),
  );
  const align = head.map((_, i) => (i < 2 ? ':--' : '--:'));
  return [head, align, ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** What one item costs the model as the compact view fetch_items returns, and with its text. */
interface ItemCost {
  compact_view_tokens: number;
  with_full_text_tokens: number;
  raw_message_tokens: number;
}

async function itemCost(): Promise<ItemCost> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-tokens-items-'));
  try {
    const inbox = generateInbox(MESSAGES, DEFAULT_SEED);
    await writeMaildir(root, inbox.messages);
    const workflow = parseWorkflow(demoWorkflowYaml(root), `${WORKFLOW_ID}.yaml`);
    const source = openSource(workflow, { run: { id: 'bench', trigger: { kind: 'manual', detail: null } } });
    let compact = 0;
    let full = 0;
    for (const ref of await source.listRefs()) {
      const read = await source.read(ref);
      if (!read.ok) continue;
      const view = compactView(read.item);
      compact += JSON.stringify(view).length;
      full += JSON.stringify({ ...view, text: read.item.text }).length;
    }
    const raw = inbox.messages.reduce((s, m) => s + renderMessage(m).length, 0);
    return {
      compact_view_tokens: perItem(tokens(compact)),
      with_full_text_tokens: perItem(tokens(full)),
      raw_message_tokens: perItem(tokens(raw)),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function shareLine(row: Row): string {
  const perTurn = Math.round(row.system_and_tools_tokens / row.turns);
  const share = Math.round((row.system_and_tools_tokens / row.client_estimate_input_tokens) * 100);
  return `Every turn re-sends the system prompt and tool specs (~${perTurn} tokens, ${share}% of the input) and the paged window: the task, the last page of compact views, the calls and their results.`;
}

function itemLine(cost: ItemCost): string {
  return `Each item reaches the model as a compact view of ~${cost.compact_view_tokens} tokens; with its full text it would be ~${cost.with_full_text_tokens} (the raw message is ~${cost.raw_message_tokens}), paid again on every turn its page stays in the window.`;
}

function markdown(rows: Row[], cost: ItemCost, pageSize: number): string {
  return `## Token budget (\`npm run bench:tokens\`)

One run of the inbox-triage workflow over a fixed batch of ${MESSAGES} generated messages (seed \`0x${DEFAULT_SEED.toString(16)}\`), through the real engine: fetch_items in pages of ${pageSize}, one submit_action per item, finish_batch, the gate, the executor's paged context window. "input" and "output" are totals for the run; "/ item" divides by ${MESSAGES}.

- **offline** tokens are an estimate: characters / 4 of what the SDK hands the model (messages, system prompt, tool specs) and of what it answers.
- **openai / anthropic** rows run the real providers (the Strands SDK's model classes inside the resilient provider) against a local server on 127.0.0.1 that speaks that wire format and plays the offline model's judgement. Their tokens are the usage the provider reported, which is **the server's own count** (characters / 4 of the request's messages, system and tools, and of the streamed output), not a real tokenizer's.

${table(rows)}

${shareLine(rows[0]!)} Tools take item ids and return compact views (sender, subject, a 280-character snippet); the text stays in the run context. ${itemLine(cost)}
`;
}

async function writeFormatted(file: string, text: string): Promise<void> {
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(text, { ...options, filepath: file }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false } } });
  const rows: Row[] = [];
  for (const kind of ['offline', 'openai', 'anthropic'] as const) rows.push(await measure(kind));
  const inbox = generateInbox(MESSAGES, DEFAULT_SEED);
  const cost = await itemCost();
  const pageSize = engineFromEnv(loadEnv({ HANDOFF_MODEL_PROVIDER: 'local' })).settings.pageSize;

  console.log(`Tokens for one run over ${MESSAGES} messages (seed 0x${DEFAULT_SEED.toString(16)}):\n`);
  console.log(table(rows));
  console.log(`\n${shareLine(rows[0]!)}\n${itemLine(cost)}`);
  if (values['dry-run']) {
    console.log('\n--dry-run: bench/results left as they were');
    return;
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFormatted(
    path.join(RESULTS_DIR, 'tokens.json'),
    `${JSON.stringify(
      {
        benchmark: 'tokens',
        node: process.version,
        seed: DEFAULT_SEED,
        messages: MESSAGES,
        page_size: pageSize,
        workflow: WORKFLOW_ID,
        chars_per_token: CHARS_PER_TOKEN,
        kinds: inbox.kinds,
        per_item: cost,
        rows,
      },
      null,
      2,
    )}\n`,
  );
  await writeFormatted(path.join(RESULTS_DIR, 'tokens.md'), markdown(rows, cost, pageSize));
  console.log('\nWrote bench/results/tokens.json, tokens.md');
}

await main();
