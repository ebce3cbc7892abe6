import type { Agent } from '@strands-agents/sdk';
import type { RunContext } from '../run-state/run-context.ts';
import { RunLedger } from '../run-state/run-ledger.ts';
import { identify } from '../actions/identify.ts';
import { releaseHolds } from '../actions/outcomes.ts';
import { auditRunFinished } from '../audit/audit.ts';
import { buildRunGraph, type RunGraph } from '../graph/run-graph.ts';
import { liveRulesFor } from '../memory/rules-repository.ts';
import { ruleKeysReady } from '../memory/rule-keys.ts';
import { sourceKeyOf } from '../memory/source-key.ts';
import { readStoredSettings, type StoredSettings } from '../settings/settings.ts';
import { openSource } from '../sources/open-source.ts';
import { readInBatches, type SourceItem } from '../sources/source.ts';
import type { Workflow } from '../workflows/schema.ts';
import { resolveWorkflow } from '../workflows/resolve.ts';
import { serverOf } from '../integrations/tool.ts';
import { listPending } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import type { Run } from '../records/runs.ts';
import { describeCounts } from './counts.ts';
import { quietReason } from './quiet-reason.ts';
import { RunSnapshotStorage } from './snapshot-storage.ts';
import { stopBeforeEachNode, type Step } from './dispatch.ts';
import { failRun } from './lifecycle.ts';
import { recordRun, runRecorder } from '../recorder/record-run.ts';
import type { SessionRecorder } from '../recorder/recorder.ts';
import { runIntegrations } from '../integrations/run-integrations.ts';
import { routeModelEvents } from '../models/model-events.ts';
import { HandoffError, errorMessage } from '../errors/index.ts';
import { recordRunReport } from '../artifacts/report.ts';
import { composerFor, type ReplyContext } from '../actions/compose.ts';
import { readProfile } from '../profile/profile.ts';

/** The threshold in force for a workflow: its own, else the stored setting, else the environment's. */
export function thresholdFor(
  workflow: Workflow,
  deps: EngineDeps,
  stored: StoredSettings | null = null,
): number {
  return workflow.confidence_threshold ?? stored?.confidence_threshold ?? deps.settings.confidenceThreshold;
}

/**
 * Builds the run's context and graph; the same for a fresh start and a resume in another
 * process. The integrations its actions name are connected: call `close` when the graph is done.
 */
export async function prepareRun(
  deps: EngineDeps,
  run: Run,
  storedWorkflow: Workflow,
): Promise<
  RunGraph & {
    ctx: RunContext;
    snapshots: RunSnapshotStorage;
    recorder: SessionRecorder;
    close: () => Promise<void>;
  }
> {
  // Its named agents as specialists, and its skills, at the versions the run pinned.
  const resolved = await resolveWorkflow(deps.store, storedWorkflow, {
    skills: run.skills ?? [],
    agents: run.agents ?? [],
  });
  const workflow = resolved.workflow;
  const source = openSource(workflow, { run, credentials: deps.credentials, store: deps.store });
  const stored = await readStoredSettings(deps.store); // once per run: the Settings page's values
  const node = nodeInThisProcess(deps, run);
  // A node run on its own reads only what it uses: rules for the gate, held items for fetching.
  const readsRules = node === null || node === 'executor' || node === 'resume';
  const readsHeld = node !== 'completer';
  const held = new Set(
    (readsHeld ? await listPending(deps.store) : [])
      .filter((d) => d.workflow_id === workflow.id && d.run_id !== run.id)
      .map((d) => d.item_id),
  );
  // Rules indexed by what they match are read a page of items at a time (executor/tools.ts).
  const keyed = readsRules && (await ruleKeysReady(deps.store));
  const ctx: RunContext = {
    store: deps.store,
    runId: run.id,
    workflow,
    skills: resolved.skills,
    source,
    policy: {
      threshold: thresholdFor(workflow, deps, stored),
      actions: new Map(workflow.actions.map((a) => [a.name, { irreversible: a.irreversible }])),
    },
    rules: readsRules && !keyed ? await liveRulesFor(deps.store, workflow.id, sourceKeyOf(workflow)) : [],
    ...(keyed ? { ruleKeys: { read: new Set<string>() } } : {}),
    pageSize: deps.settings.pageSize,
    items: new Map(),
    held,
    verdicts: new Map(),
    decided: [],
    holds: [],
    sourceLost: null,
    ledger: new RunLedger(),
    refs: null,
    ...(deps.dispatcher?.carry ? { answersCarriedElsewhere: true } : {}),
    emit: (kind, text, data = {}) => deps.emit(run.id, kind, text, data),
  };
  if (!readsRules) unread(ctx, 'rules', node);
  if (!readsHeld) unread(ctx, 'held', node);
  const hasNewItems = async () => {
    // A source that can tell cheaply that nothing changed (IMAP: one STATUS) saves the reads.
    if (source.mayHaveNew && !(await source.mayHaveNew())) return false;
    const seen = new Map<string, SourceItem>();
    for await (const read of readInBatches(source, (ctx.refs ??= await source.listRefs()), ctx.pageSize, 1)) {
      if (!read.ok) {
        if (read.gone) continue;
        return true; // the executor records it as unparseable
      }
      const sighting = await identify(deps.store, workflow.id, run.id, read.item, seen);
      if (sighting.kind === 'copy') return true; // the executor records it as a duplicate
      if (sighting.kind === 'new') {
        if (!held.has(sighting.item.id)) return true;
        seen.set(sighting.item.id, sighting.item);
      }
    }
    return false;
  };
  const complete = async (executor: Agent) => {
    // A completer on its own (dispatch mode) never ran the executor: the counts are the run's as saved.
    const counts = node === 'completer' ? run.counts : RunLedger.of(executor.appState).counts();
    const summary = `Run ${run.id} finished: ${describeCounts(counts)}.`;
    // Items set aside but never asked (the executor ended without finish_batch): a later run asks.
    await releaseHolds(
      deps.store,
      run,
      ctx.ledger.deferred().map((d) => d.item_id),
    );
    await recordRunReport(deps.store, run, workflow, summary); // the run's report, or its digest
    await auditRunFinished(deps.store, run, summary);
    // Items set aside unasked are still "new" for the next run: keep the trigger reading then.
    if (ctx.ledger.deferred().length === 0) await source.markSeen?.();
    const link = await deps.links.runUrl(run.id);
    await deps.notifier.notify({
      kind: 'completed',
      runId: run.id,
      workflowName: workflow.name,
      summary,
      link,
    });
    return summary;
  };
  // Made before the model, so its repairs are kept in the trace. A run that saved no graph
  // yet starts its trace (a retry that finds chunks after all catches up on them).
  const recorder = runRecorder(deps.store, run, {
    newSession: run.snapshot === null && run.dispatch === null,
  });
  const model = await deps.models('primary', {
    onEvent: routeModelEvents(run.id, {
      emit: deps.emit,
      repairs: (_, event) => recorder.noteModelEvent(event),
    }),
  });
  ctx.compose = composerFor(model, replyContextOnce(deps, workflow), () => ctx.source, {
    store: deps.store,
    workflowId: workflow.id,
    runId: run.id,
  });
  const specialists = workflow.specialists ?? [];
  const fallbackModel = specialists.some((s) => s.model === 'fallback')
    ? await deps.models('fallback', {
        onEvent: routeModelEvents(run.id, {
          emit: deps.emit,
          repairs: (_, event) => recorder.noteModelEvent(event),
        }),
      })
    : undefined;
  // Connected last, so nothing above can fail and leave a server running.
  const acts = actsInThisProcess(deps, run);
  const servers = [
    ...new Set([...(workflow.integrations ?? []), ...specialists.flatMap((s) => s.tools ?? [])]),
  ];
  const integrations = await runIntegrations(deps.store, deps.credentials, {
    actions: acts ? workflow.actions.map((a) => a.name) : [],
    servers: acts ? servers : [],
  });
  ctx.source = integrations.wrapSource(ctx.source);
  ctx.policy.actions = integrations.gatePolicy(ctx.policy.actions);
  for (const { server, status } of integrations.problems)
    ctx.emit('failed', `Integration ${server} cannot be used in this run: ${status}`, {
      integration: server,
      status,
    });
  const snapshots = new RunSnapshotStorage(deps.store, run.id);
  const graph = buildRunGraph({
    ctx,
    trigger: run.trigger,
    model,
    ...(fallbackModel ? { fallbackModel } : {}),
    snapshots,
    hasNewItems,
    quietReason: () => quietReason(deps.store, workflow, run),
    complete,
  });
  // Every agent that decides items reads with the same tools, behind the same hook; a
  // specialist with its own `tools` reads with only those (and the others never with them).
  const own = specialists.some((s) => s.tools !== undefined)
    ? [...(workflow.integrations ?? []), ...workflow.actions.map((a) => serverOf(a.name) ?? '')]
    : undefined;
  integrations.attach(graph.executor, own);
  for (const s of graph.desk?.specialists ?? []) integrations.attach(s.agent, s.spec.tools ?? own);
  if (deps.dispatcher) stopBeforeEachNode(graph.graph);
  recordRun(recorder, graph);
  const close = async () => {
    await integrations.close();
    await source.close?.();
  };
  return { ...graph, ctx, snapshots, recorder, close };
}

type PreparedRun = Awaited<ReturnType<typeof prepareRun>>;

/**
 * Prepares the run and does `work` with it, closing its integrations whatever happens.
 * When the set-up itself throws (say the model provider cannot be made), nothing ran:
 * with `onSetupError: 'fail-run'` the run is marked failed at once, with the reason and a
 * notice, and returned; with `'throw'` the error is left to the caller (a Lambda step,
 * whose retries run it again and whose last failure marks the run failed).
 */
export async function withPreparedRun(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  options: { onSetupError: 'fail-run' | 'throw'; step?: Step | undefined },
  work: (prepared: PreparedRun) => Promise<Run>,
): Promise<Run> {
  let prepared: PreparedRun;
  try {
    prepared = await prepareRun(deps, run, workflow);
  } catch (error) {
    if (options.onSetupError === 'throw') throw error;
    const reason = errorMessage(error);
    const failed = await failRun(deps, run.id, reason, { step: options.step });
    if (failed.marked) return failed.run;
    throw error;
  }
  try {
    return await work(prepared);
  } finally {
    await prepared.close(); // ends the run's integration servers, whatever happened
  }
}

/** The one node this process runs of the run (dispatch mode), or null when it runs them all. */
function nodeInThisProcess(deps: EngineDeps, run: Run): Step | 'trigger' | null {
  if (!deps.dispatcher) return null;
  return run.dispatch?.node ?? 'trigger';
}

/** Makes a field of the run's context throw when used: the node this process runs did not read it. */
function unread(ctx: RunContext, field: 'rules' | 'held', node: string | null): void {
  Object.defineProperty(ctx, field, {
    get: () => {
      throw new HandoffError(`the ${node ?? 'run'} step did not read the run's ${field}; it cannot use them`);
    },
  });
}

/**
 * Whether the executor may act in this process: always in one process; in dispatch mode
 * only in the executor and resume steps (the trigger and completer steps act on nothing,
 * so they connect no integration and open no credential).
 */
function actsInThisProcess(deps: EngineDeps, run: Run): boolean {
  return !deps.dispatcher || run.dispatch?.node === 'executor' || run.dispatch?.node === 'resume';
}

/** What the run's replies are written with: the instructions and the person, read once, when first needed. */
function replyContextOnce(deps: EngineDeps, workflow: Workflow): () => Promise<ReplyContext> {
  let context: Promise<ReplyContext> | undefined;
  const address =
    workflow.source.type === 'imap' && workflow.source.user.includes('@') ? workflow.source.user : null;
  return () =>
    (context ??= readProfile(deps.store).then((profile) => ({
      instructions: workflow.instructions,
      me: { name: profile.name, address },
    })));
}
