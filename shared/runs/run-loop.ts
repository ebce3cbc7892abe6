import type { Agent } from '@strands-agents/sdk';
import type { Graph, MultiAgentResult } from '@strands-agents/sdk/multiagent';
import { RunLedger, type DecisionAnswer } from '../run-state/run-ledger.ts';
import type { DecisionsResponse } from '../gate/gate-hook.ts';
import { VersionConflictError, errorMessage } from '../errors/index.ts';
import { log } from '../logging/log.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { anyPending, decisionsOf, getInterrupt } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import type { DispatchReason, Step } from './dispatch.ts';
import { olderThan, STEP_LEASE_MS } from './dispatch-timing.ts';
import {
  dispatchNext,
  expireUnasked,
  failRun,
  finishRun,
  pauseRun,
  releaseStep,
  takeForResume,
  takeStep,
  type PassLeft,
} from './lifecycle.ts';
import { interpret, interpretThrown, type Outcome } from './outcome.ts';
import { withPreparedRun } from './prepare.ts';
import { progressWriter } from './progress-writer.ts';
import type { Run } from '../records/runs.ts';
import { getRun } from './run-repository.ts';
import type { RuleHits } from '../memory/rule-fires.ts';
import { readGraph } from './graph-state.ts';

/** Where a pass of the graph starts: a fresh run's trigger, or a step resumed from a pause. */
export type Entry = 'trigger' | Step;

/** What applying an outcome leaves: the run, and whether it can be resumed at once. */
interface Applied {
  run: Run;
  /** Nobody could be asked: its questions were skipped, and the run goes on without them. */
  resume: boolean;
}

/**
 * The run loop: runs the graph from `entry`, applies what it came to, and goes on while
 * the run can go on here (a pause nobody could be told about resumes at once, its
 * questions skipped). Returns the run as it was left: waiting, completed, skipped,
 * failed, or dispatched to another process.
 */
export async function drive(deps: EngineDeps, run: Run, entry: Entry): Promise<Run> {
  let applied = await pass(deps, run, entry);
  while (applied.resume) {
    const taken = await takeWhenSettled(deps, applied.run.id);
    if (taken.run.status !== 'running' || !taken.took) return taken.run;
    if (deps.dispatcher) return sendResume(deps, taken.run);
    applied = await pass(deps, taken.run, 'resume');
  }
  return applied.run;
}

/**
 * Resumes a waiting run once every decision of its interrupt is answered or expired.
 * Taking the run is a conditional write, so of two resumers only one acts. In dispatch
 * mode the resume itself is sent to its own process (the resume Lambda); where the host
 * works resumes elsewhere (`resumeElsewhere`: the local server's run child), handed to it.
 */
export async function resumeIfReady(deps: EngineDeps, runId: string, known?: KnownSettled): Promise<Run> {
  const taken = await takeWhenSettled(deps, runId, known);
  if (!taken.took) return taken.run;
  if (deps.dispatcher) return sendResume(deps, taken.run);
  if (deps.resumeElsewhere) {
    deps.resumeElsewhere(taken.run); // taken (running, owned here) until its process adopts it
    return taken.run;
  }
  return drive(deps, taken.run, 'resume');
}

/**
 * Runs the step a run was dispatched for (dispatch mode: the node's own Lambda). A
 * duplicate or late delivery finds the run moved on and does nothing. Re-running a step
 * is safe: items already acted on are claimed and never acted on again.
 */
export async function runStep(deps: EngineDeps, runId: string, step: Step): Promise<Run> {
  const run = await getRun(deps.store, runId);
  if (run.status === 'running' && run.dispatch && run.dispatch.from === step && run.dispatch.node !== step) {
    // A retry of the step that dispatched: its dispatch may have been lost, so send it again.
    await deps.dispatcher?.dispatch({ run_id: run.id, node: run.dispatch.node });
    return run;
  }
  if (run.status !== 'running' || run.dispatch?.node !== step) return run;
  const now = new Date();
  // Another delivery of this step is running it (or died recently: the sweeper re-sends it after the lease).
  if (!olderThan(run.dispatch.taken_at, STEP_LEASE_MS, now)) return run;
  let taken: Run;
  try {
    taken = await takeStep(deps.store, run, now);
  } catch (error) {
    if (error instanceof VersionConflictError) return getRun(deps.store, runId); // another delivery took it
    throw error;
  }
  try {
    return await drive(deps, taken, step);
  } catch (error) {
    await releaseQuietly(deps, taken); // so the function's own retry takes it again
    throw error;
  }
}

/**
 * What the last answer of an interrupt knows: the run as it read it, and the questions it
 * saw decided (they never wait again), its own included.
 */
export interface KnownSettled {
  run: Run;
  decided: ReadonlySet<string>;
}

async function takeWhenSettled(
  deps: EngineDeps,
  runId: string,
  known?: KnownSettled,
): Promise<{ run: Run; took: boolean }> {
  if (known) {
    const taken = await takeKnown(deps, known);
    if (taken) return { run: taken, took: true };
  }
  const run = await getRun(deps.store, runId);
  if (run.status !== 'waiting' || !run.interrupt_id) return { run, took: false };
  const interrupt = await getInterrupt(deps.store, run.interrupt_id);
  if (await anyPending(deps.store, interrupt)) return { run, took: false };
  readGraph(run); // a paused graph this build cannot read is refused before the run is touched
  const taken = await takeForResume(deps, run, interrupt);
  return taken ? { run: taken, took: true } : { run: await getRun(deps.store, runId), took: false };
}

/**
 * Takes the run for its resume from what the last answer knows, reading only the interrupt:
 * when every question of it was seen decided. Null when it cannot tell, or the run it read
 * has moved since (another writer): then the run is read afresh.
 */
async function takeKnown(deps: EngineDeps, known: KnownSettled): Promise<Run | null> {
  const { run, decided } = known;
  if (run.status !== 'waiting' || !run.interrupt_id) return null;
  const interrupt = await getInterrupt(deps.store, run.interrupt_id);
  if (interrupt.status !== 'open' || !interrupt.decision_ids.every((id) => decided.has(id))) return null;
  readGraph(run);
  return takeForResume(deps, run, interrupt);
}

async function sendResume(deps: EngineDeps, taken: Run): Promise<Run> {
  try {
    await deps.dispatcher!.dispatch({ run_id: taken.id, node: 'resume' });
  } catch (error) {
    // The answers are saved and the run is marked for its resume step: the sweeper sends it again.
    log.error(
      `run ${taken.id}: the resume dispatch failed (${errorMessage(error)}); the sweeper re-sends it`,
    );
    deps.emit(taken.id, 'resumed', 'Resume delayed: the dispatch failed and will be sent again', {});
  }
  return taken;
}

async function releaseQuietly(deps: EngineDeps, taken: Run): Promise<void> {
  try {
    await releaseStep(deps.store, taken);
  } catch (error) {
    log.error(`run ${taken.id}: could not release its step (${errorMessage(error)}); the sweeper will`, {
      run_id: taken.id,
      workflow_id: taken.workflow_id,
    });
  }
}

/**
 * One pass: prepares the run, invokes the graph from `entry`, reads the result as an
 * outcome and applies it. A set-up that throws fails the run at once in one process; a
 * Lambda step throws, for its retries.
 */
async function pass(deps: EngineDeps, run: Run, entry: Entry): Promise<Applied> {
  const workflow = await getWorkflow(deps.store, run.workflow_id);
  const input = await inputFor(deps, run, entry);
  const step = entry === 'trigger' ? undefined : entry;
  const onSetupError = deps.dispatcher && step ? 'throw' : 'fail-run';
  let resume = false;
  const left = await withPreparedRun(
    deps,
    run,
    workflow,
    { onSetupError, step },
    async ({ graph, executor, snapshots, recorder, ctx }) => {
      // Its counts go onto the record as it runs (the page's live counts), never after it ends.
      const progress = progressWriter(deps.store, run.id);
      ctx.ledger.watchCounts((counts) => progress.saw(counts));
      const outcome = await invokeOnce(graph, input, entry);
      await progress.stop();
      const left = { graph: snapshots.pending, traceTail: recorder.tail() };
      const applied = await apply(deps, run, workflow, executor, outcome, left, entry);
      resume = applied.resume;
      return applied.run;
    },
  );
  return { run: left, resume };
}

async function invokeOnce(
  graph: Graph,
  input: Parameters<Graph['invoke']>[0],
  entry: Entry,
): Promise<Outcome> {
  let result: MultiAgentResult;
  try {
    result = await graph.invoke(input);
  } catch (error) {
    return interpretThrown(error);
  }
  return interpret(result, entry !== 'trigger');
}

/**
 * Applies an outcome with the lifecycle transition it names; then, where the executor ran in
 * this process, folds the rules' firings of the run so far into their records.
 */
async function apply(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  executor: Agent,
  outcome: Outcome,
  left: PassLeft,
  entry: Entry,
): Promise<Applied> {
  const applied = await transition(deps, run, workflow, executor, outcome, left, entry);
  if (entry !== 'completer') await foldFirings(deps, run.id, RunLedger.of(executor.appState).ruleHits());
  return applied;
}

/**
 * Adds a run's rule hits to the rules' records (memory/rule-fires.ts), after its step's
 * transition landed. Best effort: a lost fold is made up by the run's next step, never fails it.
 */
async function foldFirings(deps: EngineDeps, runId: string, hits: RuleHits): Promise<void> {
  if (Object.keys(hits).length === 0) return;
  try {
    // Loaded when a rule fired: a run (or an API process) where none did never loads it.
    const { foldRuleHits } = await import('../memory/rule-fires.ts');
    await foldRuleHits(deps.store, runId, hits);
  } catch (error) {
    log.warn(`run ${runId}: the rules' firings were not counted (${errorMessage(error)})`);
  }
}

/** The lifecycle transition an outcome names. */
async function transition(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  executor: Agent,
  outcome: Outcome,
  left: PassLeft,
  entry: Entry,
): Promise<Applied> {
  // The completer's own process never runs the executor: the counts are the run's as saved.
  const counts = entry === 'completer' ? run.counts : RunLedger.of(executor.appState).counts();
  switch (outcome.kind) {
    case 'dispatch-next':
      return {
        run: await dispatchNext(deps, run, {
          node: outcome.node,
          interruptId: outcome.interruptId,
          counts,
          left,
        }),
        resume: false,
      };
    case 'pause': {
      const asked = new Set(outcome.itemIds);
      const items = RunLedger.of(executor.appState)
        .deferred()
        .filter((d) => asked.has(d.item_id));
      const paused = await pauseRun(deps, run, workflow, {
        strandsInterruptId: outcome.interruptId,
        items,
        counts,
        left,
      });
      if (paused.reached) return { run: paused.run, resume: false };
      // Nobody can be asked: every question is skipped, never decided, and the run goes on.
      await expireUnasked(deps, run.id, paused.reason);
      return { run: paused.run, resume: true };
    }
    case 'finish':
    case 'skip': {
      const done = {
        triggered: outcome.kind === 'finish',
        reason: outcome.kind === 'skip' ? outcome.reason : null,
        counts,
      };
      return { run: await finishRun(deps, run, done), resume: false };
    }
    case 'fail': {
      const failed = await failRun(deps, run.id, outcome.reason, { counts });
      return { run: failed.run ?? run, resume: false };
    }
  }
}

/** What the graph is run with: the trigger, the step to run, or the person's answers. */
async function inputFor(deps: EngineDeps, run: Run, entry: Entry): Promise<Parameters<Graph['invoke']>[0]> {
  if (entry === 'trigger') return JSON.stringify(run.trigger);
  if (entry !== 'resume') {
    const response: DispatchReason = { node: entry };
    return [{ interruptResponse: { interruptId: run.dispatch!.interrupt_id, response } }];
  }
  const interrupt = await getInterrupt(deps.store, run.interrupt_id!);
  const answers: DecisionAnswer[] = (await decisionsOf(deps.store, interrupt)).map((d) => ({
    decision_id: d.id,
    item_id: d.item_id,
    action: d.answer?.action ?? 'skip',
    note: d.answer?.note ?? null,
    by: d.status === 'answered' ? 'human' : d.answer?.by === 'unreachable' ? 'unreachable' : 'expired',
    reason: d.answer?.reason ?? null,
    body: d.answer?.body ?? null,
    title: d.answer?.title ?? null,
  }));
  const response: DecisionsResponse = { answers };
  return [{ interruptResponse: { interruptId: interrupt.strands_interrupt_id, response } }];
}
