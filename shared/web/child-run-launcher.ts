/**
 * The local server's launcher: each run is worked in a child process of its own (`handoff
 * __run-child`), so however many items a run has, the server's thread keeps answering. The
 * child's feed events are emitted into the server's feed (the run page streams them). A child
 * that dies mid-run leaves a run owned by a dead process: crash recovery adopts it at once.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeedEvent } from '../events/feed.ts';
import { logLine } from '../logging/log.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { recoverCrashedRuns } from '../runs/housekeeping.ts';
import { failRun } from '../runs/lifecycle.ts';
import { getRun } from '../runs/run-repository.ts';
import type { Run } from '../records/runs.ts';
import { errorMessage } from '../errors/index.ts';
import { plural } from '../text/plural.ts';
import type { ChildMessage, ChildOrder } from './run-child.ts';
import { oneLine, type LaunchEntry, type RunLauncher } from './run-launcher.ts';

/** The CLI entry (bin/handoff.js), from this module in the sources or in the bundle (dist/). */
export function handoffBin(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'bin', 'handoff.js');
    if (existsSync(bin)) return bin;
    if (path.dirname(dir) === dir) throw new Error(`cannot find bin/handoff.js above ${from}`);
  }
}

export interface ChildLauncherOptions {
  /** The script a child runs and its arguments (default: `bin/handoff.js __run-child`). */
  command?: { script: string; args: string[] };
  log?: (line: string) => void;
  /** Told each child's pid once it owns its run (tests). */
  onAdopted?: (run: Run, pid: number) => void;
}

/**
 * A launcher that works each run in a child process: a created run from its trigger, and a
 * run taken for its resume (its engine's `resumeElsewhere`, see {@link workInChildren}).
 */
export function createChildRunLauncher(
  engine: EngineDeps,
  opts: ChildLauncherOptions = {},
): ChildRunLauncher {
  const log = opts.log ?? logLine;
  const command = opts.command ?? { script: handoffBin(), args: ['__run-child'] };
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    const tracked = work.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };
  return {
    launch(run, runEngine = engine, entry = 'trigger') {
      track(
        workInChild(runEngine, run, entry, command, log, opts.onAdopted).catch((error: unknown) =>
          log(`handoff: run ${run.id}: ${oneLine(errorMessage(error))}`),
        ),
      );
    },
    carry(decisionIds, runEngine = engine) {
      track(
        carryInChild(runEngine, decisionIds, command, log).catch((error: unknown) =>
          log(`handoff: answers not carried out at once: ${oneLine(errorMessage(error))}`),
        ),
      );
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/** The child launcher: runs, and batches of answers to carry out while their runs wait. */
export interface ChildRunLauncher extends RunLauncher {
  /** Carries out the answered items (by decision id) in a child; never throws. */
  carry(decisionIds: string[], engine?: EngineDeps): void;
}

/**
 * Makes `engine` hand to `launcher`'s children each run it takes for its resume, and each
 * batch of answers to carry out while their runs wait, instead of working them itself.
 */
export function workInChildren(engine: EngineDeps, launcher: ChildRunLauncher): void {
  engine.resumeElsewhere = (run) => launcher.launch(run, engine, 'resume');
  engine.carryElsewhere = (decisionIds) => launcher.carry(decisionIds, engine);
}

/** A child started with `order`, its feed events emitted into `engine`'s; resolves with how it ended. */
function forkWith(
  engine: EngineDeps,
  order: ChildOrder,
  command: { script: string; args: string[] },
  log: (line: string) => void,
  onAdopted?: (pid: number) => void,
): Promise<{ done: boolean; how: string }> {
  return new Promise((resolve) => {
    let done = false;
    const child = fork(command.script, command.args, {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
      env: process.env,
    });
    child.on('message', (raw) => {
      const message = raw as ChildMessage;
      if (message.type === 'emit')
        engine.emit(message.channel, message.kind as FeedEvent['kind'], message.text, message.data);
      else if (message.type === 'adopted') onAdopted?.(message.pid);
      else if (message.type === 'done') done = true;
    });
    child.once('error', (error) => log(`handoff: could not start the run's process: ${error.message}`));
    child.once('exit', (code, signal) =>
      resolve({ done, how: signal ? `was stopped (${signal})` : `exited (code ${code})` }),
    );
    child.send(order);
  });
}

async function workInChild(
  engine: EngineDeps,
  run: Run,
  entry: LaunchEntry,
  command: { script: string; args: string[] },
  log: (line: string) => void,
  onAdopted: ChildLauncherOptions['onAdopted'],
): Promise<void> {
  const order: ChildOrder = {
    type: 'run',
    run_id: run.id,
    entry,
    workspace: engine.workspace,
    settings: { ...engine.settings },
  };
  const ended = await forkWith(engine, order, command, log, (pid) => onAdopted?.(run, pid));
  if (!ended.done) await afterDeath(engine, run, ended.how, log);
}

/**
 * A child that dies carrying out answers leaves nothing to recover here: an item it had not
 * reached is carried out by its run's resume, one it was acting on is settled by the sweep.
 */
async function carryInChild(
  engine: EngineDeps,
  decisionIds: string[],
  command: { script: string; args: string[] },
  log: (line: string) => void,
): Promise<void> {
  const order: ChildOrder = {
    type: 'carry',
    decision_ids: decisionIds,
    workspace: engine.workspace,
    settings: { ...engine.settings },
  };
  const ended = await forkWith(engine, order, command, log);
  if (!ended.done)
    log(
      `handoff: the process carrying out ${plural(decisionIds.length, 'answer')} ${ended.how}; their runs' resumes carry out the rest`,
    );
}

/**
 * The child ended without settling its run. Owned by the dead child, the run is recovered as
 * any crashed run is (the items it was acting on recorded failed, its questions withdrawn); a
 * run it never took is marked failed here.
 */
async function afterDeath(
  engine: EngineDeps,
  run: Run,
  how: string,
  log: (line: string) => void,
): Promise<void> {
  log(`handoff: the process working run ${run.id} (${run.workflow_id}) ${how}`);
  try {
    await recoverCrashedRuns(engine); // owned by the dead child: recovered as any crashed run
    const now = await getRun(engine.store, run.id);
    if (now.status === 'running' && (now.owner === null || now.owner.pid === process.pid))
      await failRun(engine, run.id, `its process ${how} before it started`);
  } catch (error) {
    log(`handoff: could not recover run ${run.id}: ${oneLine(errorMessage(error))}`);
  }
}
