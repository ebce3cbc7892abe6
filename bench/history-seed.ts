/**
 * A year of history, written straight into a workspace's store: settled runs of 100 items
 * each (every item acted, one in ten asked and answered; at least MIN_RUNS runs, the older
 * ones empty where the items make fewer), their outcomes, audit entries,
 * questions and interrupts, all with the ids the product gives them (a child's id carries its
 * run's key), and 5,000 learned rules, each under the key of what it matches (rule_keys, with
 * the marker that says the rules are indexed). Written through the store's own commit, so every
 * index (status, by-time) holds them as if the runs had happened.
 */
import { auditIdFor } from '../shared/audit/audit-ids.ts';
import { outcomeId } from '../shared/actions/outcomes.ts';
import { RULE_KEYS_MIGRATED_ID, ruleKeyOf } from '../shared/memory/rule-keys.ts';
import { RuleSchema } from '../shared/records/rule.ts';
import { EMPTY_COUNTS } from '../shared/records/runs.ts';
import { decisionIdFor } from '../shared/runs/decision-repository.ts';
import { STATS_RUNS } from '../shared/runs/read-stats.ts';
import { stableId } from '../shared/store/ids.ts';
import { commitAll, type JsonRecord, type Store, type Write } from '../shared/store/store.ts';

export const ITEMS_PER_RUN = 100;
const ASKED_EVERY = 10;
const BATCH = 100;
const PARALLEL = 4;

/** What was seeded: counts per collection, and one seeded run to read (its audit, its digest). */
export interface Seeded {
  counts: Record<string, number>;
  sampleRunId: string;
}

/**
 * The records of the `r`-th settled run of `workflowId`, started `r` hours before `now`, with
 * `items` items (ITEMS_PER_RUN, or none: a scheduled run that found no new mail).
 */
function runRecords(workflowId: string, r: number, now: number, items = ITEMS_PER_RUN): Write[] {
  const id = stableId('run', 'history', String(r));
  const started = new Date(now - (r + 1) * 3_600_000).toISOString();
  const at = (i: number) => new Date(Date.parse(started) + i * 10).toISOString();
  const writes: Write[] = [];
  const put = (collection: Write['collection'], record: JsonRecord) =>
    writes.push({ kind: 'put', collection, record });
  const interruptId = stableId('int', id, 'history');
  const decisionIds: string[] = [];
  put('audit', {
    id: auditIdFor(id, id, 'run_started'),
    run_id: id,
    workflow_id: workflowId,
    item_id: null,
    outcome: 'run_started',
    action: null,
    decided_by: null,
    confidence: null,
    reasoning: null,
    note: null,
    rule_id: null,
    detail: 'schedule trigger',
    at: started,
  });
  for (let i = 0; i < items; i++) {
    const itemId = `<h${r}.${i}@history.example>`;
    const asked = i % ASKED_EVERY === 0;
    const outcome = {
      id: outcomeId(workflowId, itemId),
      version: 2,
      workflow_id: workflowId,
      item_id: itemId,
    };
    put('outcomes', { ...outcome, run_id: id, action: 'archive', status: 'acted', at: at(i) });
    put('audit', {
      id: auditIdFor(id, outcome.id),
      run_id: id,
      workflow_id: workflowId,
      item_id: itemId,
      subject: `Receipt ${r}.${i}`,
      outcome: 'acted',
      action: 'archive',
      decided_by: asked ? 'human' : 'model',
      confidence: asked ? 1 : 0.92,
      reasoning: 'a receipt',
      note: null,
      rule_id: null,
      detail: 'moved to Archive',
      at: at(i),
    });
    if (!asked) continue;
    const decisionId = decisionIdFor(id, itemId);
    decisionIds.push(decisionId);
    put('decisions', {
      id: decisionId,
      version: 2,
      run_id: id,
      interrupt_id: interruptId,
      workflow_id: workflowId,
      item_id: itemId,
      sender: `billing${i}@vendor${r % 50}.example`,
      subject: `Receipt ${r}.${i}`,
      snippet: 'Thank you for your payment.',
      suggested_action: 'archive',
      confidence: 0.4,
      reasoning: 'unsure',
      reason: 'low_confidence',
      options: ['archive', 'file_ticket', 'draft_reply', 'skip'],
      status: 'answered',
      answer: { action: 'archive', note: null, by: 'human', at: at(ITEMS_PER_RUN + i) },
      created_at: at(i),
      expires_at: new Date(Date.parse(started) + 72 * 3_600_000).toISOString(),
    });
  }
  if (decisionIds.length > 0)
    put('interrupts', {
      id: interruptId,
      version: 2,
      run_id: id,
      workflow_id: workflowId,
      strands_interrupt_id: 'history',
      decision_ids: decisionIds,
      status: 'resumed',
      created_at: at(ITEMS_PER_RUN),
    });
  put('audit', {
    id: auditIdFor(id, id, 'run_finished'),
    run_id: id,
    workflow_id: workflowId,
    item_id: null,
    outcome: 'run_finished',
    action: null,
    decided_by: null,
    confidence: null,
    reasoning: null,
    note: null,
    rule_id: null,
    detail: `Run ${id} finished`,
    at: at(ITEMS_PER_RUN * 2),
  });
  put('runs', {
    id,
    version: 5,
    workflow_id: workflowId,
    status: 'completed',
    trigger: { kind: 'schedule', detail: '0 8 * * *' },
    counts: {
      ...EMPTY_COUNTS,
      acted: items,
      confident: items - decisionIds.length,
      by_you: decisionIds.length,
      deferred: decisionIds.length,
    },
    interrupt_id: decisionIds.length > 0 ? interruptId : null,
    dispatch: null,
    snapshot: null,
    error: null,
    owner: null,
    started_at: started,
    finished_at: at(ITEMS_PER_RUN * 2),
    keyed: true,
  });
  return writes;
}

/** The `k`-th learned rule: a sender's mail archived. */
function ruleRecord(workflowId: string, k: number, now: number): JsonRecord {
  const created = new Date(now - 400 * 86_400_000 + k * 60_000).toISOString();
  return {
    id: `rule_${Date.parse(created).toString(36).padStart(9, '0')}_${k.toString(16).padStart(6, '0')}`,
    version: 1,
    workflow_id: workflowId,
    match: { sender: `sender${k}@shop${k % 97}.example` },
    action: 'archive',
    source: 'learned',
    note: null,
    confidence: 0.9,
    decision_id: null,
    item_id: null,
    superseded_by: null,
    pattern: `Anything from sender${k}@shop${k % 97}.example → archive`,
    mirror_ids: [],
    created_at: created,
  };
}

/**
 * At least this many runs in every workspace, the runs a workspace of few items lacks being
 * older runs that found no new mail: `stats` lists the newest STATS_RUNS (100) runs and says
 * whether more follow, so with fewer runs at 1,000 items (ten) than at 10,000 (a hundred) it
 * read less there, and the sizes were not compared on the same work.
 */
export const MIN_RUNS = STATS_RUNS + 1;

/**
 * Writes `items` settled items of history (in runs of ITEMS_PER_RUN, and empty runs up to
 * MIN_RUNS) and `rules` rules into `store`.
 */
export async function seedHistory(
  store: Store,
  workflowId: string,
  items: number,
  rules: number,
  progress: (done: number, total: number) => void = () => {},
): Promise<Seeded> {
  const now = Date.now();
  const fullRuns = Math.max(1, Math.round(items / ITEMS_PER_RUN));
  const runs = Math.max(MIN_RUNS, fullRuns);
  const counts: Record<string, number> = {};
  const batches: Write[][] = [];
  let pending: Write[] = [];
  const add = (writes: Write[]) => {
    for (const w of writes) {
      counts[w.collection] = (counts[w.collection] ?? 0) + 1;
      pending.push(w);
      if (pending.length === BATCH) {
        batches.push(pending);
        pending = [];
      }
    }
  };
  for (let r = 0; r < runs; r++) add(runRecords(workflowId, r, now, r < fullRuns ? ITEMS_PER_RUN : 0));
  for (let k = 0; k < rules; k++) {
    const rule = ruleRecord(workflowId, k, now);
    const key = ruleKeyOf(RuleSchema.parse(rule));
    add([
      { kind: 'put', collection: 'rules', record: rule },
      { kind: 'put', collection: 'rule_keys', record: { id: key, version: 1, rules: [rule] } },
    ]);
  }
  add([
    {
      kind: 'put',
      collection: 'settings',
      record: { id: RULE_KEYS_MIGRATED_ID, at: new Date(now).toISOString() },
    },
  ]);
  if (pending.length > 0) batches.push(pending);
  let done = 0;
  for (let i = 0; i < batches.length; i += PARALLEL) {
    await Promise.all(
      batches.slice(i, i + PARALLEL).map(async (batch) => {
        for (const result of await commitAll(store, batch)) if (!result.ok) throw result.error;
      }),
    );
    done += Math.min(PARALLEL, batches.length - i);
    progress(done, batches.length);
  }
  return { counts, sampleRunId: stableId('run', 'history', String(Math.floor(fullRuns / 2))) };
}
