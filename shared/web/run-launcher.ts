import type { EngineDeps } from '../runs/deps.ts';
import { logLine } from '../logging/log.ts';
import type { Run } from '../records/runs.ts';
import { failRun } from '../runs/lifecycle.ts';
import { drive } from '../runs/run-loop.ts';
import { executeRun } from '../runs/start-run.ts';
import { errorMessage } from '../errors/index.ts';

/** Where a launched run's work starts: a created run's trigger, or a run taken for its resume. */
export type LaunchEntry = 'trigger' | 'resume';

/** Executes created runs (and taken resumes) after the HTTP answer has gone out. */
export interface RunLauncher {
  /**
   * Starts working the run in the background (in `engine`'s workspace, default the
   * launcher's), from its trigger or, for a run taken for its resume, from its resume; never throws.
   */
  launch(run: Run, engine?: EngineDeps, entry?: LaunchEntry): void;
  /** Resolves once no launched run is in flight (tests, shutdown). */
  idle(): Promise<void>;
}

/**
 * The local launcher: `executeRun` in this process, one stderr line per failure,
 * in-flight work tracked so `idle()` can wait for it.
 */
export function createRunLauncher(engine: EngineDeps, log: (line: string) => void = logLine): RunLauncher {
  const inFlight = new Set<Promise<void>>();
  return {
    launch(run, runEngine = engine, entry = 'trigger') {
      const work: Promise<void> = (
        entry === 'resume' ? drive(runEngine, run, 'resume') : executeRun(runEngine, run)
      )
        .then(() => undefined)
        .catch((error: unknown) => giveUp(runEngine, run, error, log))
        .finally(() => inFlight.delete(work));
      inFlight.add(work);
    },
    async idle() {
      // Loop: a run may be launched while we wait for the others.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/** executeRun threw before the run could settle itself: log it and mark the run failed. */
async function giveUp(
  engine: EngineDeps,
  run: Run,
  error: unknown,
  log: (line: string) => void,
): Promise<void> {
  const reason = oneLine(errorMessage(error));
  log(`handoff: run ${run.id} (${run.workflow_id}) failed: ${reason}`);
  try {
    await failRun(engine, run.id, reason); // a run that settled itself meanwhile is left alone
  } catch (cause) {
    log(`handoff: could not mark run ${run.id} failed: ${oneLine(errorMessage(cause))}`);
  }
}

/** Collapses whitespace so a message is one log line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
