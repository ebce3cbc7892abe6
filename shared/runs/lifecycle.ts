import type { Snapshot } from '@strands-agents/sdk';
import type { DeferredItem } from '../run-state/run-ledger.ts';
import type { Tail } from '../recorder/session-chunks.ts';
import { releaseHolds } from '../actions/outcomes.ts';
import { auditEntryOf, auditRunFinished } from '../audit/audit.ts';
import { auditIdFor } from '../audit/audit-ids.ts';
import { RecordExistsError, VersionConflictError, errorMessage } from '../errors/index.ts';
import { newId, stableId } from '../store/ids.ts';
import { getRecord } from '../store/records.ts';
import { commitAll, type Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { decisionIdFor, decisionsOf, getInterrupt, workflowView } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import type { Step } from './dispatch.ts';
import { notifyRunFailed, type FailureNoticeDeps } from './failure-notice.ts';
import { GRAPH_SCHEMA_VERSION } from './graph-state.ts';
import {
  dispatchTo,
  type LibraryPin,
  EMPTY_COUNTS,
  RunSchema,
  type Answer,
  type Decision,
  type InterruptRecord,
  type Run,
  type RunCounts,
  type RunTrigger,
} from '../records/runs.ts';
import { getRun, thisProcess } from './run-repository.ts';
import { recordMetric } from '../logging/metrics.ts';
import { log } from '../logging/log.ts';
import { foldRun } from './run-totals.ts';
import { quietUntil, readProfile } from '../profile/profile.ts';
import { plural } from '../text/plural.ts';

/*
 * The run lifecycle: the only module that writes a run's state. Each transition is one
 * conditional write (the store refuses a stale version) plus the audit entry, feed event
 * and notice that go with it. docs/lifecycle.md has the table.
 */

async function write(store: Store, run: Run, change: Partial<Run>): Promise<Run> {
  return RunSchema.parse(await store.update('runs', { ...run, ...change }, run.version));
}

/** What a pass leaves for the next one: the graph it saved, and where its trace goes on. */
export interface PassLeft {
  /** Null when it saved none (the record's stands). */
  graph: Snapshot | null;
  /** Undefined when its recorder does not know (the next pass looks). */
  traceTail: Tail | undefined;
}

/** What the run record keeps of `left`. */
function kept(left: PassLeft): Partial<Run> {
  return {
    ...(left.graph ? { snapshot: { schemaVersion: GRAPH_SCHEMA_VERSION, graph: { ...left.graph } } } : {}),
    ...(left.traceTail ? { trace_tail: left.traceTail } : {}),
  };
}

/**
 * Start: creates a running run and its run_started audit entry in one durable write; with
 * `id` given, a second create of the same id throws RecordExistsError (and adds no entry).
 * `pins`: the skill and agent versions it reads, for good.
 */
export async function createRun(
  store: Store,
  workflowId: string,
  trigger: RunTrigger,
  id = newId('run'),
  pins: { skills: LibraryPin[]; agents: LibraryPin[] } = { skills: [], agents: [] },
): Promise<Run> {
  const run: Omit<Run, 'version'> = {
    id,
    workflow_id: workflowId,
    status: 'running',
    trigger,
    counts: { ...EMPTY_COUNTS },
    interrupt_id: null,
    dispatch: null,
    snapshot: null,
    error: null,
    owner: thisProcess(),
    started_at: new Date().toISOString(),
    finished_at: null,
    ...(pins.skills.length > 0 ? { skills: pins.skills } : {}),
    ...(pins.agents.length > 0 ? { agents: pins.agents } : {}),
    keyed: true,
  };
  const started = auditEntryOf({
    id: auditIdFor(id, id, 'run_started'),
    run_id: id,
    workflow_id: workflowId,
    item_id: null,
    outcome: 'run_started',
    action: null,
    decided_by: null,
    detail: `${trigger.kind} trigger`,
  });
  const [created, audited] = await commitAll(store, [
    { kind: 'create', collection: 'runs', record: run },
    { kind: 'create', collection: 'audit', record: started },
  ]);
  if (!created!.ok) throw created!.error;
  if (!audited!.ok && !(audited!.error instanceof RecordExistsError)) throw audited!.error;
  return RunSchema.parse(created!.record);
}

/**
 * Take (resume): a waiting run whose questions are all settled becomes running, owned by
 * this process (in dispatch mode, marked for its resume step). Null when another resumer
 * won the write.
 */
export async function takeForResume(
  deps: EngineDeps,
  run: Run,
  interrupt: InterruptRecord,
): Promise<Run | null> {
  let taken: Run;
  try {
    const dispatch = deps.dispatcher ? dispatchTo('resume', interrupt.strands_interrupt_id, null) : null;
    taken = await write(deps.store, run, { status: 'running', dispatch, owner: thisProcess() });
  } catch (error) {
    if (error instanceof VersionConflictError) return null;
    throw error;
  }
  await deps.store.update('interrupts', { ...interrupt, status: 'resumed' }, interrupt.version);
  deps.emit(run.id, 'resumed', 'Every question answered; resuming', { interrupt_id: interrupt.id });
  return taken;
}

/**
 * Adopt: the process a launcher handed a created run, or one taken for its resume, to (a run child of the local server)
 * owns it from now on, so crash recovery judges the run by that process. Null when the run
 * is no longer a running run nobody else has taken.
 */
export async function adoptRun(store: Store, run: Run): Promise<Run | null> {
  if (run.status !== 'running' || run.dispatch) return null;
  try {
    return await write(store, run, { owner: thisProcess() });
  } catch (error) {
    if (error instanceof VersionConflictError) return null;
    throw error;
  }
}

/** Take (step): marks the dispatched step taken by this process; two deliveries never both run it. */
export async function takeStep(store: Store, run: Run, now: Date): Promise<Run> {
  const dispatch = { ...run.dispatch!, taken_at: now.toISOString() };
  return write(store, run, { dispatch, owner: thisProcess() });
}

/** Release: a step that threw gives its run back, so the function's own retry takes it again. */
export async function releaseStep(store: Store, taken: Run): Promise<void> {
  const run = await getRun(store, taken.id);
  if (run.dispatch && run.dispatch.taken_at === taken.dispatch?.taken_at)
    await write(store, run, { dispatch: { ...run.dispatch, taken_at: null } });
}

/** Dispatch next: saves where the run stopped and sends the next node to its own process. */
export async function dispatchNext(
  deps: EngineDeps,
  run: Run,
  next: { node: Step; interruptId: string; counts: RunCounts; left: PassLeft },
): Promise<Run> {
  const current = await getRun(deps.store, run.id);
  const dispatched = await write(deps.store, current, {
    dispatch: dispatchTo(next.node, next.interruptId, current.dispatch?.node ?? null),
    counts: next.counts,
    owner: null,
    ...kept(next.left),
  });
  await deps.dispatcher!.dispatch({ run_id: run.id, node: next.node });
  return dispatched;
}

/** Resend: a dispatch nobody took (or whose step died) is sent again. False when the run moved meanwhile. */
export async function resendStep(deps: EngineDeps, run: Run, now: Date, why: string): Promise<boolean> {
  const dispatch = run.dispatch!;
  const resend = { ...dispatch, sent_at: now.toISOString(), sends: dispatch.sends + 1, taken_at: null };
  try {
    await write(deps.store, run, { dispatch: resend, owner: null });
  } catch (error) {
    if (error instanceof VersionConflictError) return false;
    throw error;
  }
  deps.emit(run.id, 'resumed', `Sent the ${dispatch.node} step again: ${why}`, { sends: resend.sends });
  await deps.dispatcher!.dispatch({ run_id: run.id, node: dispatch.node });
  return true;
}

/** What the person was told when a run paused: asked, or nobody could be reached. */
export type Paused = { run: Run; reached: true } | { run: Run; reached: false; reason: string };

/**
 * Pause: one question per deferred item and the interrupt that groups them are created
 * (once: a retried pause finds them), and the run waits with its paused graph, all in one
 * durable write; then the person is asked.
 */
export async function pauseRun(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  raised: { strandsInterruptId: string; items: DeferredItem[]; counts: RunCounts; left: PassLeft },
): Promise<Paused> {
  const interruptId = stableId('int', run.id, raised.strandsInterruptId);
  const now = new Date();
  // In quiet hours the person is told when they end, and has the whole time to answer from then.
  const quietEnd = quietUntil(await readProfile(deps.store), now);
  const toldAt = quietEnd ?? now;
  const expires = new Date(toldAt.getTime() + deps.settings.decisionTtlHours * 3_600_000).toISOString();
  const decisions: Omit<Decision, 'version'>[] = raised.items.map((item) => ({
    id: decisionIdFor(run.id, item.item_id),
    run_id: run.id,
    interrupt_id: interruptId,
    workflow_id: workflow.id,
    item_id: item.item_id,
    item_ref: item.ref,
    sender: item.sender,
    subject: item.subject,
    suggested_action: item.suggested_action,
    confidence: item.confidence,
    reasoning: item.reasoning,
    snippet: item.snippet,
    reason: item.reason,
    options: workflow.human_gate.options,
    ...(item.agent !== undefined ? { agent: item.agent } : {}),
    ...(item.drafts && item.drafts.length > 0 ? { drafts: item.drafts } : {}),
    workflow_view: workflowView(workflow),
    status: 'pending',
    answer: null,
    created_at: now.toISOString(),
    expires_at: expires,
  }));
  const interrupt: Omit<InterruptRecord, 'version'> = {
    id: interruptId,
    run_id: run.id,
    workflow_id: workflow.id,
    strands_interrupt_id: raised.strandsInterruptId,
    decision_ids: decisions.map((d) => d.id),
    status: 'open',
    created_at: now.toISOString(),
    ...(quietEnd ? { notice_due_at: quietEnd.toISOString() } : {}),
  };
  // Every question, the interrupt and the waiting run in one durable write; a retry finds
  // the questions made (their creates fail alone) and still moves the run.
  const current = await getRun(deps.store, run.id);
  const results = await commitAll(deps.store, [
    ...decisions.map((record) => ({ kind: 'create' as const, collection: 'decisions' as const, record })),
    { kind: 'create', collection: 'interrupts', record: interrupt },
    {
      kind: 'update',
      collection: 'runs',
      expectedVersion: current.version,
      record: {
        ...current,
        status: 'waiting',
        dispatch: null,
        interrupt_id: interruptId,
        counts: raised.counts,
        owner: null,
        ...kept(raised.left),
      },
    },
  ]);
  const moved = results.at(-1)!;
  for (const result of results.slice(0, -1))
    if (!result.ok && !(result.error instanceof RecordExistsError)) throw result.error;
  if (!moved.ok) throw moved.error;
  const waiting = RunSchema.parse(moved.record);
  deps.emit(run.id, 'asked', `${plural(decisions.length, 'question')} for you`, {
    interrupt_id: interruptId,
    count: decisions.length,
  });
  recordMetric('ItemsAsked', decisions.length);
  if (quietEnd) {
    deps.emit(run.id, 'asked', `Quiet hours: you will be told at ${quietEnd.toISOString()}`, {
      interrupt_id: interruptId,
      notice_due_at: quietEnd.toISOString(),
    });
    return { run: waiting, reached: true };
  }
  try {
    await deps.notifier.notify({
      kind: 'asked',
      runId: run.id,
      workflowName: workflow.name,
      count: decisions.length,
      link: await deps.links.urlFor(decisions[0]!.id, new Date(expires)),
    });
  } catch (error) {
    const reason = `the person could not be reached (${errorMessage(error)}); the items were skipped, nothing was done to them`;
    deps.emit(run.id, 'failed', reason, {});
    return { run: waiting, reached: false, reason };
  }
  return { run: waiting, reached: true };
}

/** Finish: the graph completed; a run whose trigger found nothing to do is skipped. */
export async function finishRun(
  deps: EngineDeps,
  run: Run,
  done: { triggered: boolean; reason: string | null; counts: RunCounts },
): Promise<Run> {
  const finished = await write(deps.store, await getRun(deps.store, run.id), {
    status: done.triggered ? 'completed' : 'skipped',
    dispatch: null,
    counts: done.counts,
    snapshot: null,
    owner: null,
    finished_at: new Date().toISOString(),
    skip_reason: done.triggered ? null : (done.reason ?? 'not triggered'),
  });
  await foldIntoTotals(deps.store, finished);
  if (!done.triggered) await auditRunFinished(deps.store, run, `skipped: ${done.reason ?? 'not triggered'}`);
  deps.emit(
    run.id,
    'completed',
    done.triggered ? 'Run completed' : `Run skipped: ${done.reason ?? 'nothing to do'}`,
    {
      status: finished.status,
    },
  );
  return finished;
}

/** Adds a finished run to the running totals (run-totals.ts); a lost fold is made up by `stats`, never fails the run. */
async function foldIntoTotals(store: Store, run: Run): Promise<void> {
  try {
    await foldRun(store, run);
  } catch (error) {
    log.warn(
      `run ${run.id}: its counts were not added to the totals (${errorMessage(error)}); stats adds them later`,
    );
  }
}

export type FailResult =
  | { marked: true; run: Run }
  | { marked: false; run: Run | null; why: 'missing' | 'finished' | 'waiting' | 'moved_on' };

const FAIL_ATTEMPTS = 3;

/**
 * Fail: the one way a run is marked failed (a graph that failed, a set-up that threw, a
 * step whose retries are exhausted, a dead process, a dispatch sent too often). A
 * conditional write: a run already completed, skipped or failed is left alone, as is a
 * waiting run (its questions stay answerable) and, when `step` is given, a run that has
 * since moved to another step. Holds are released, dispatch and snapshot cleared, the
 * audit gets run_finished, the feed `failed`, and the person is told once.
 */
export async function failRun(
  deps: FailureNoticeDeps,
  runId: string,
  reason: string,
  options: { step?: Step | undefined; counts?: RunCounts } = {},
): Promise<FailResult> {
  for (let attempt = 1; ; attempt++) {
    const run = await getRecord(deps.store, 'runs', RunSchema, runId);
    if (!run) return { marked: false, run: null, why: 'missing' };
    if (run.status === 'waiting') return { marked: false, run, why: 'waiting' };
    if (run.status !== 'running') return { marked: false, run, why: 'finished' };
    if (options.step !== undefined && run.dispatch !== null && run.dispatch.node !== options.step)
      return { marked: false, run, why: 'moved_on' };
    let failed: Run;
    try {
      failed = await write(deps.store, run, {
        status: 'failed',
        dispatch: null,
        error: reason,
        snapshot: null,
        ...(options.counts ? { counts: options.counts } : {}),
        owner: null,
        finished_at: new Date().toISOString(),
      });
    } catch (error) {
      // Someone moved the run meanwhile: look again (it may have finished, or be failable still).
      if (!(error instanceof VersionConflictError) || attempt >= FAIL_ATTEMPTS) throw error;
      continue;
    }
    await foldIntoTotals(deps.store, failed);
    await releaseHolds(deps.store, run); // the items it held are asked again by the next run
    await auditRunFinished(deps.store, run, `failed: ${reason}`);
    deps.emit(run.id, 'failed', `Run failed: ${reason}`, {});
    recordMetric('RunsFailed');
    await notifyRunFailed(deps, failed, reason);
    return { marked: true, run: failed };
  }
}

const COUNT_ATTEMPTS = 8;

/**
 * Count: what an answer carried out while its run still waits is added to the run's counts
 * at once (its page and the Overview show it). Only while the run waits: a resumed run
 * counts it from the item's outcome (gate-hook's resume). False when the run no longer waits.
 */
export async function countWhileWaiting(
  store: Store,
  known: Run,
  keys: readonly (keyof RunCounts)[],
): Promise<boolean> {
  if (keys.length === 0) return true;
  // The run as the answer read it first (usually still current), then as it is now.
  for (let attempt = 1, run = known; ; attempt++, run = await getRun(store, known.id)) {
    if (run.status !== 'waiting') return false;
    const counts = { ...run.counts };
    for (const key of keys) counts[key] += 1;
    try {
      await write(store, run, { counts });
      return true;
    } catch (error) {
      // Another answer counted meanwhile: count on the run as it is now.
      if (!(error instanceof VersionConflictError) || attempt >= COUNT_ATTEMPTS) throw error;
    }
  }
}

/**
 * Expire: a question past its deadline is skipped, never decided. False when it was
 * answered meanwhile.
 */
export async function expireDecision(
  store: Store,
  decision: Decision,
  answer: Omit<Answer, 'action' | 'note'>,
): Promise<boolean> {
  try {
    await store.update(
      'decisions',
      { ...decision, status: 'expired', answer: { action: 'skip', note: null, ...answer } },
      decision.version,
    );
    return true;
  } catch (error) {
    if (error instanceof VersionConflictError) return false;
    throw error;
  }
}

/** Expire (unreachable): every pending question of a run is marked never asked, so resuming skips them. */
export async function expireUnasked(deps: EngineDeps, runId: string, reason: string): Promise<void> {
  const at = new Date().toISOString();
  // Read by id (strongly consistent): the questions were created a moment ago.
  const run = await getRun(deps.store, runId);
  const asked = run.interrupt_id
    ? await decisionsOf(deps.store, await getInterrupt(deps.store, run.interrupt_id))
    : [];
  for (const decision of asked.filter((d) => d.status === 'pending'))
    await expireDecision(deps.store, decision, { by: 'unreachable', reason, at });
}
