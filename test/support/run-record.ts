import { RunSchema, type Run } from '../../shared/records/runs.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import type { Store } from '../../shared/store/store.ts';

/** Rewrites a stored run as a test's setting needs (time passed, a step taken): never a lifecycle transition. */
export async function changeRun(store: Store, id: string, change: (run: Run) => Partial<Run>): Promise<Run> {
  const run = await getRun(store, id);
  return RunSchema.parse(await store.update('runs', { ...run, ...change(run) }, run.version));
}
