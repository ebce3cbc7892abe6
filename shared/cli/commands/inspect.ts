import type { Command } from 'commander';
import { costText, inspectRun, type InspectEntry, type RunTrace } from '../../recorder/views.ts';
import type { Store } from '../../store/store.ts';
import { cliContext } from '../context.ts';
import { printJson } from '../output.ts';
import { plural } from '../../text/plural.ts';

const PAYLOAD_CHARS = 160;

export function registerInspectCommand(program: Command): void {
  program
    .command('inspect RUN_ID')
    .description('one run as a trace: nodes, model turns, tool calls, the pause, the answers, the resume')
    .option('--json', 'print JSON (payloads as recorded, up to a few KB each)')
    .action(async (runId: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      await printInspect(engine.store, runId, options);
    });
}

/** Prints the run's trace: JSON with `--json`, else one line per step for people. */
export async function printInspect(store: Store, runId: string, options: { json?: boolean }): Promise<void> {
  const trace = await inspectRun(store, runId);
  if (options.json) return printJson(trace);
  for (const line of traceLines(trace)) process.stdout.write(`${line}\n`);
}

/** The trace as lines: a header, then each step with its time, and the totals. */
export function traceLines(trace: RunTrace): string[] {
  const { run, totals } = trace;
  const lines = [
    `Run ${run.id} · workflow ${run.workflow_id} · ${run.status}`,
    `started ${run.started_at}${run.finished_at ? ` · finished ${run.finished_at}` : ''}`,
  ];
  if (run.error) lines.push(`error: ${run.error}`);
  if (trace.entries.length === 0) {
    lines.push('', 'No trace was recorded for this run.');
    return lines;
  }
  lines.push('');
  let day = run.started_at.slice(0, 10);
  for (const entry of trace.entries) {
    if (entry.at.slice(0, 10) !== day) {
      day = entry.at.slice(0, 10);
      lines.push(`— ${day} —`);
    }
    lines.push(
      ...entryLines(entry).map((text, i) =>
        i === 0 ? `${entry.at.slice(11, 23)}  ${text}` : `              ${text}`,
      ),
    );
  }
  const cost = costText(totals.known_cost_usd, totals.unknown_cost_calls, usd);
  lines.push(
    '',
    `${plural(totals.model_calls, 'model turn')} · ${plural(totals.tool_calls, 'tool call')} · ${totals.input_tokens} tokens in / ${totals.output_tokens} out · ${cost}`,
  );
  if (trace.dropped > 0)
    lines.push(`${plural(trace.dropped, 'step')} did not fit the trace and were not kept.`);
  return lines;
}

function entryLines(entry: InspectEntry): string[] {
  switch (entry.kind) {
    case 'node_start':
      return [`▶ ${entry.node}`];
    case 'node_end':
      return [
        `■ ${entry.node} ${entry.status.toLowerCase()} (${entry.ms} ms)${entry.error ? `: ${entry.error}` : ''}`,
      ];
    case 'model': {
      const usage = entry.usage_unknown
        ? 'tokens and cost unknown (the endpoint reported no usage)'
        : `${entry.input_tokens} in / ${entry.output_tokens} out · ${entry.cost_usd === null ? 'unpriced' : usd(entry.cost_usd)}`;
      return [
        `  ${by(entry)}model ${entry.model_id} → ${entry.stop_reason} · ${usage} · ${entry.ms} ms`,
        ...(entry.retries ?? []).map((r) => `  retried: ${flat(r.detail)}`),
        ...(entry.repairs ?? []).map(
          (r) =>
            `  repaired tool-call JSON (${r.fixes.join(', ')}) in ${r.tools.join(', ')}, ${
              r.source === 'failed_generation' ? 'from the generation the endpoint refused' : 'as streamed'
            }`,
        ),
        ...(entry.error ? [`  error: ${entry.error}`] : []),
        ...(entry.output ? [`  said: ${flat(entry.output)}`] : []),
      ];
    }
    case 'tool':
      return [
        `  ${by(entry)}tool ${entry.tool} · ${entry.status} · ${entry.ms} ms`,
        `  in:  ${flat(entry.input)}`,
        `  out: ${flat(entry.output)}`,
      ];
    case 'pause':
      return [`⏸ paused at ${entry.node}: ${entry.name} ${flat(entry.reason)}`];
    case 'answer':
      return [
        entry.action === null
          ? `  ? waiting: ${entry.subject} (suggested ${entry.suggested_action})`
          : `  ✓ ${entry.by === 'expired' ? 'expired' : 'answered'}: ${entry.subject} → ${entry.action}${entry.note ? ` — "${entry.note}"` : ''}`,
      ];
    case 'resume':
      return [`⏵ resumed ${entry.node}`];
    case 'handoff_call':
      return [
        `  ⇢ handoff call ${entry.source} → ${entry.target} · item ${entry.item_id} (via ${entry.via})`,
        `  in:  ${flat(entry.input)}`,
      ];
    case 'handoff_output':
      return [`  ⇢ handoff output: ${entry.target} now decides item ${entry.item_id}`];
  }
}

/** `[billing] ` for a step a specialist took inside the executor node. */
function by(entry: Record<string, unknown>): string {
  return typeof entry.agent === 'string' ? `[${entry.agent}] ` : '';
}

function flat(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > PAYLOAD_CHARS ? `${one.slice(0, PAYLOAD_CHARS - 1)}…` : one;
}

function usd(value: number): string {
  return `$${value.toFixed(6)}`;
}
