/**
 * A workspace with many questions waiting, written straight into its store: copies of one
 * real paused run (its graph, its interrupt) and of one of its questions, over several runs,
 * sender domains of uneven size and a mix of suggestions (a few irreversible). Each copy has
 * the ids the product gives (a question's id carries its run's key) and goes through the
 * store's own commit, so the status index holds them as if the runs had asked. For Activity's
 * browser test and bench; answering a copy carries out an item the mailbox does not have,
 * which the product records as gone.
 */
import type { Decision, Run } from '../shared/records/runs.ts';
import { decisionIdFor } from '../shared/runs/decision-repository.ts';
import { stableId } from '../shared/store/ids.ts';
import { commitAll, type Store, type Write } from '../shared/store/store.ts';

/** Sender domains, most questions first (a holiday's inbox: a few big senders, a long tail). */
export const SEED_DOMAINS = [
  'news.example',
  'billing.vendor.example',
  'alerts.monitor.example',
  'team.example',
  'crm.example',
  'events.example',
  'press.example',
  'tomi.fastmail.example',
];
const WEIGHTS = [30, 20, 15, 12, 9, 6, 5, 3];

/** The suggestion of the i-th copy: mostly archive, some tickets, replies, skips, a few deletes. */
function suggestionOf(i: number): { action: string; irreversible: boolean } {
  const r = i % 20;
  if (r === 0) return { action: 'delete', irreversible: true };
  if (r < 3) return { action: 'skip', irreversible: false };
  if (r < 6) return { action: 'file_ticket', irreversible: false };
  if (r < 8) return { action: 'draft_reply', irreversible: false };
  return { action: 'archive', irreversible: false };
}

function domainOf(i: number): string {
  const total = WEIGHTS.reduce((a, b) => a + b, 0);
  let at = (i * 37) % total;
  for (let d = 0; d < WEIGHTS.length; d++) {
    at -= WEIGHTS[d]!;
    if (at < 0) return SEED_DOMAINS[d]!;
  }
  return SEED_DOMAINS[0]!;
}

/**
 * Writes `count` waiting questions over `runs` copies of `run` (the first is `run` itself),
 * each question a copy of `template` (one of `run`'s). Returns the runs' ids, oldest first.
 */
export async function seedWaiting(
  store: Store,
  run: Run,
  template: Decision,
  count: number,
  runs = 4,
): Promise<string[]> {
  const base = Date.parse(template.created_at);
  const runIds = [run.id];
  const writes: Write[] = [];
  for (let r = 1; r < runs; r++) {
    const id = stableId('run', 'seeded', run.id, String(r));
    runIds.push(id);
    writes.push({
      kind: 'put',
      collection: 'runs',
      record: { ...run, id, started_at: new Date(Date.parse(run.started_at) + r * 60_000).toISOString() },
    });
  }
  for (let i = 0; i < count; i++) {
    const runId = runIds[i % runIds.length]!;
    const itemId = `<seed.${i}@${domainOf(i)}>`;
    const { action, irreversible } = suggestionOf(i);
    const domain = domainOf(i);
    const record = {
      ...template,
      version: 1,
      id: decisionIdFor(runId, itemId),
      run_id: runId,
      item_id: itemId,
      item_ref: undefined,
      sender: `sender${i % 7}@${domain}`,
      subject: `Seeded question ${i} from ${domain}`,
      snippet: `The body of seeded question ${i}.`,
      suggested_action: action,
      reason: irreversible
        ? 'irreversible'
        : template.reason === 'irreversible'
          ? 'low_confidence'
          : template.reason,
      confidence: 0.4 + (i % 5) / 10,
      drafts: [],
      status: 'pending',
      answer: null,
      created_at: new Date(base + 1000 + i).toISOString(),
    };
    writes.push({ kind: 'put', collection: 'decisions', record: JSON.parse(JSON.stringify(record)) });
  }
  for (let at = 0; at < writes.length; at += 100) await commitAll(store, writes.slice(at, at + 100));
  return runIds;
}
