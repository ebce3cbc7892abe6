import { auditEntryOf } from '../audit/audit.ts';
import { type DecidedBy } from '../records/audit.ts';
import type { RunCounts } from '../records/runs.ts';
import {
  SourceUnavailableError,
  performAll,
  type ActResult,
  type ActionContext,
  type ItemSource,
  type SourceItem,
} from '../sources/source.ts';
import { commitAll, type Store, type Write, type WriteResult } from '../store/store.ts';
import { crashPoint } from '../config/processes.ts';
import { recordMetric } from '../logging/metrics.ts';
import { auditIdOf, claimOutcomes, settleWrite } from './outcomes.ts';
import { errorMessage } from '../errors/index.ts';
import { artifactOf, artifactWrite, type Produced } from '../artifacts/artifacts.ts';
import { carriesWords, wordsWithoutModel, type Words } from './words.ts';
import type { Composer } from './compose.ts';
import { log } from '../logging/log.ts';

export interface Choice {
  action: string;
  decidedBy: DecidedBy;
  confidence: number;
  reasoning: string | null;
  note: string | null;
  ruleId: string | null;
  /** The source of the rule, when decided by memory. */
  ruleSource: 'you' | 'learned' | null;
  /** An expired decision: recorded as `expired`, never acted. */
  expired?: boolean;
  /** Why it was never decided (shown in the audit), for an expired choice. */
  skipReason?: string | null;
  /** The specialist the item was handed to, which made (or asked about) this call. */
  agent?: string;
  /** The decision a person answered, when the person decided (the provenance of what it produced). */
  decisionId?: string;
  /** The words the action carries as the person approved them; absent: written for the item when carried out. */
  words?: Words | undefined;
}

export interface CarryOutContext {
  store: Store;
  source: ItemSource;
  workflowId: string;
  runId: string;
  /** Writes an action's words for an item (the run's model); absent: written without a model. */
  compose?: Composer | undefined;
}

export type CarryOutResult = {
  /** `released`: the source could not be reached; the item is untouched, for the next run. */
  outcome: 'acted' | 'declined' | 'expired' | 'failed' | 'duplicate' | 'released';
  detail: string;
};

/** One decided item, to be carried out. */
export interface Decided {
  item: SourceItem;
  choice: Choice;
  /** The item was set aside and held by this run before it paused: its claim takes over that hold. */
  held?: boolean;
}

/**
 * Carries out one choice on one item: claim the item, act (or decline), write its audit
 * entry, then settle the claim. A claimed item is never acted on again.
 */
export async function carryOut(
  ctx: CarryOutContext,
  item: SourceItem,
  choice: Choice,
): Promise<CarryOutResult> {
  const { results, unavailable } = await carryOutMany(ctx, [{ item, choice }]);
  if (unavailable) throw unavailable;
  return results[0]!;
}

/** What a batch came to; `unavailable`: the source went away, and its `released` items wait for the next run. */
export interface CarriedOut {
  results: CarryOutResult[];
  unavailable: SourceUnavailableError | null;
  /** Of the items to hold, those another run already has: they must not be asked about. */
  notHeld: SourceItem[];
}

/**
 * Carries out many choices together (and holds `hold`, the items set aside, in the same
 * durable write as the claims): claims each item, has the source do every action in
 * one go (`performAll`: one MOVE per folder for IMAP), then writes each audit entry and
 * settles each claim. An item the source could not reach is released untouched (the next
 * run takes it again) and the source's error comes back with the results, which are in
 * the entries' order.
 */
export async function carryOutMany(
  ctx: CarryOutContext,
  decided: readonly Decided[],
  hold: readonly SourceItem[] = [],
): Promise<CarriedOut> {
  if (decided.length === 0 && hold.length === 0) return { results: [], unavailable: null, notHeld: [] };
  const heldItems = new Set(decided.flatMap((d) => (d.held ? [d.item.id] : [])));
  const words = await wordsOfAll(ctx, decided); // written before anything is claimed
  const taken = await claimOutcomes(
    ctx.store,
    [
      ...decided.map(({ item, choice }) => claimOf(ctx, item, choice.action, 'acting')),
      ...hold.map((item) => claimOf(ctx, item, null, 'held')),
    ],
    { heldItems, interim: true }, // settled by this page's record, written with it
  );
  const claims = taken.slice(0, decided.length);
  const notHeld = hold.filter((_, k) => taken[decided.length + k] === null);
  crashPoint('carry-out:claimed'); // claimed, nothing done: recovery fails these claims, never acts
  const acting = decided.flatMap((d, i) => (claims[i] && actsOnSource(d.choice) ? [i] : []));
  const started = performance.now();
  const produced = new Map<number, Produced>(); // what each action made (a draft, a ticket)
  const staged = new Map<number, Write[]>(); // the store writes each action made (a ticket), for the record
  const performed = await performAll(
    ctx.source,
    acting.map((i) => ({
      action: decided[i]!.choice.action,
      item: decided[i]!.item,
      context: contextFor(ctx, decided[i]!.choice, words.get(i), {
        produced: (p) => produced.set(i, p),
        stage: (w) => staged.set(i, [...(staged.get(i) ?? []), w]),
      }),
    })),
  );
  crashPoint('carry-out:performed'); // done, not recorded: no staged ticket exists, recovery fails the claims
  const perItem = (performance.now() - started) / Math.max(1, acting.length);
  const byEntry = new Map(acting.map((i, k) => [i, performed[k]!]));

  const results: CarryOutResult[] = [];
  let unavailable: SourceUnavailableError | null = null;
  for (const [i, { choice }] of decided.entries()) {
    const done = byEntry.get(i);
    if (!claims[i]) results.push({ outcome: 'duplicate', detail: 'already handled; nothing done' });
    else if (done && !done.ok && done.error instanceof SourceUnavailableError) {
      unavailable ??= done.error;
      results.push({ outcome: 'released', detail: errorMessage(done.error) });
    } else results.push(resultOf(choice, done));
  }
  const entries: Write[] = [];
  const settles: Write[] = [];
  const artifacts: Write[] = []; // tickets and artifacts, recorded with the audit entries: one durable write per page
  // A batch's entries are stamped a millisecond apart, so the log reads in decision order.
  const stampedFrom = Date.now();
  for (const [i, { item, choice }] of decided.entries()) {
    const claim = claims[i];
    const result = results[i]!;
    if (!claim) continue;
    if (result.outcome === 'released') {
      settles.push(settleWrite(claim, 'released')); // untouched: the next run takes it
      continue;
    }
    if (result.outcome === 'acted') {
      recordMetric('ItemsActed');
      recordMetric('ItemLatency', perItem);
    }
    const entry = auditEntryOf({
      id: auditIdOf(claim),
      run_id: ctx.runId,
      workflow_id: ctx.workflowId,
      item_id: item.id,
      subject: item.subject,
      sender: item.sender.address,
      outcome: result.outcome,
      action: choice.action,
      decided_by: choice.expired ? null : choice.decidedBy,
      confidence: choice.confidence,
      reasoning: choice.reasoning,
      note: choice.note,
      rule_id: choice.ruleId,
      detail: result.detail,
      agent: choice.agent,
    });
    entries.push({
      kind: 'put',
      collection: 'audit',
      record: { ...entry, at: new Date(stampedFrom + entries.length).toISOString() },
    });
    settles.push(settleWrite(claim, result.outcome));
    if (result.outcome !== 'acted') continue;
    artifacts.push(...(staged.get(i) ?? [])); // its ticket lands with its audit entry, or not at all
    const made = produced.get(i);
    if (made) artifacts.push(artifactWrite(artifactOf(made, provenanceOf(ctx, item, choice))));
  }
  await record(ctx.store, [...entries, ...artifacts], settles);
  return { results, unavailable, notHeld };
}

/**
 * Writes the entries, then settles the claims: one commit where the store has one (a
 * page recorded in one durable write), else the entries first, so a process killed
 * between the two leaves claims still `acting` whose entries exist, and recovery settles
 * each from its entry.
 */
async function record(store: Store, entries: Write[], settles: Write[]): Promise<void> {
  if (store.commit) landedAll(await store.commit([...entries, ...settles]));
  else landedAll(await commitAll(store, entries));
  crashPoint('carry-out:half-recorded');
  if (!store.commit) landedAll(await commitAll(store, settles));
}

/** Throws the first write that did not land (a claim settled elsewhere: the run was failed meanwhile). */
function landedAll(results: WriteResult[]): void {
  for (const result of results) if (!result.ok) throw result.error;
}

function claimOf(ctx: CarryOutContext, item: SourceItem, action: string | null, status: 'acting' | 'held') {
  return {
    workflow_id: ctx.workflowId,
    item_id: item.id,
    run_id: ctx.runId,
    action,
    status,
    ...(item.fingerprint !== undefined ? { fingerprint: item.fingerprint } : {}),
  };
}

/** Whether the choice asks the source to do something (not a skip, not an expired question). */
export function actsOnSource(choice: Choice): boolean {
  return !choice.expired && choice.action !== 'skip';
}

function contextFor(
  ctx: CarryOutContext,
  choice: Choice,
  words: Words | undefined,
  hooks: Pick<ActionContext, 'produced' | 'stage'>,
): ActionContext {
  return {
    store: ctx.store,
    workflowId: ctx.workflowId,
    runId: ctx.runId,
    note: choice.note,
    reasoning: choice.reasoning,
    words,
    ...hooks,
  };
}

/**
 * The words each acting choice carries: as the person approved them, else written now for
 * its item (a rule or a sure model that drafts writes a fresh draft per message). When the
 * model cannot write them, the words written without one (an offline draft, marked) stand in.
 */
async function wordsOfAll(ctx: CarryOutContext, decided: readonly Decided[]): Promise<Map<number, Words>> {
  const words = new Map<number, Words>();
  for (const [i, { item, choice }] of decided.entries()) {
    if (!actsOnSource(choice) || !carriesWords(choice.action)) continue;
    let written = choice.words?.action === choice.action ? choice.words : null;
    if (!written && ctx.compose)
      written = await ctx.compose(item, choice.action).catch((error: unknown) => {
        log.warn(
          `${choice.action} for ${item.id}: the model wrote nothing (${errorMessage(error)}); an offline draft stands in`,
        );
        return null;
      });
    written ??= wordsWithoutModel(item, choice.action);
    if (written) words.set(i, written);
  }
  return words;
}

function provenanceOf(ctx: CarryOutContext, item: SourceItem, choice: Choice) {
  return {
    workflowId: ctx.workflowId,
    runId: ctx.runId,
    itemId: item.id,
    decisionId: choice.decidedBy === 'human' ? (choice.decisionId ?? null) : null,
  };
}

function resultOf(
  choice: Choice,
  done: ActResult | undefined,
): CarryOutResult & { outcome: 'acted' | 'declined' | 'expired' | 'failed' } {
  if (choice.expired)
    return { outcome: 'expired', detail: choice.skipReason ?? 'nobody answered in time; nothing done' };
  if (!done) return { outcome: 'declined', detail: 'skipped; nothing done' };
  return done.ok
    ? { outcome: 'acted', detail: done.detail }
    : { outcome: 'failed', detail: errorMessage(done.error) };
}

/**
 * The counts a carried-out choice adds to. "Handled by memory" has one meaning: a rule
 * decided the item, whatever it chose (an action or skip) and however acting went. So it
 * matches the audit's `decided_by: memory` entries one for one; a rule's skip is not
 * also counted as declined.
 */
export function countFor(choice: Choice, result: CarryOutResult): (keyof RunCounts)[] {
  if (result.outcome === 'duplicate' || result.outcome === 'released') return [];
  const outcome: keyof RunCounts =
    result.outcome === 'acted' ? 'acted' : result.outcome === 'failed' ? 'failed' : 'declined';
  if (choice.decidedBy === 'memory' && !choice.expired) {
    const rules = choice.ruleSource === 'you' ? 'by_your_rules' : 'by_learned_rules';
    return outcome === 'declined' ? [rules] : [outcome, rules];
  }
  if (outcome !== 'acted') return [outcome];
  if (choice.decidedBy === 'model') return ['acted', 'confident'];
  return choice.decidedBy === 'human' ? ['acted', 'by_you'] : ['acted'];
}
