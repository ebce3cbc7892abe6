/**
 * A running run's counts, written onto its record as it goes (every {@link PROGRESS_EVERY_CHANGES}
 * changes or {@link PROGRESS_EVERY_MS}, whichever comes first), so its page and `GET
 * /runs/:id/progress` show items acted on and asked moving while it runs, whichever process
 * works it. One keyed read and one conditional write each time; a write that loses to another
 * writer is dropped (the next one, or the run's own lifecycle write, says it). Stopped, and
 * its last write awaited, before the run's lifecycle write, which it never races.
 */
import { VersionConflictError, errorMessage } from '../errors/index.ts';
import { holdPoint } from '../config/processes.ts';
import { log } from '../logging/log.ts';
import { RunSchema, type RunCounts } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import { getRun } from './run-repository.ts';

/** Count changes between two progress writes at most. */
export const PROGRESS_EVERY_CHANGES = 50;
/** Time between two progress writes at most (while the counts change). */
export const PROGRESS_EVERY_MS = 500;

export interface ProgressWriter {
  /** Told each change of the run's counts. */
  saw(counts: RunCounts): void;
  /** Writes no more; resolves once a write in flight has landed. */
  stop(): Promise<void>;
}

export function progressWriter(store: Store, runId: string, now: () => number = Date.now): ProgressWriter {
  let changes = 0;
  let lastAt = now();
  let latest: RunCounts | null = null;
  let writing: Promise<void> | null = null;
  let stopped = false;

  const write = async (counts: RunCounts): Promise<void> => {
    try {
      const run = await getRun(store, runId);
      if (run.status !== 'running') return;
      await store.update('runs', RunSchema.parse({ ...run, counts }), run.version);
      holdPoint('run:progress-written'); // tests: a run seen mid-way, for sure
    } catch (error) {
      if (!(error instanceof VersionConflictError))
        log.warn(`run ${runId}: its progress was not written (${errorMessage(error)})`);
    }
  };
  const flush = (): void => {
    if (writing || !latest || stopped) return;
    const counts = latest;
    latest = null;
    changes = 0;
    lastAt = now();
    writing = write(counts).finally(() => {
      writing = null;
    });
  };

  return {
    saw(counts) {
      if (stopped) return;
      latest = counts;
      changes += 1;
      if (changes >= PROGRESS_EVERY_CHANGES || now() - lastAt >= PROGRESS_EVERY_MS) flush();
    },
    async stop() {
      stopped = true;
      await writing;
    },
  };
}
