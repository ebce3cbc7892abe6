/**
 * One local scheduler per workspace: each reads its own workflows and starts runs in its
 * own workspace. Workspaces added while the server runs get theirs at the next period.
 */
import { logLine } from '../logging/log.ts';
import { errorMessage } from '../errors/index.ts';
import type { Platform } from '../workspaces/platform.ts';
import type { RunLauncher } from './run-launcher.ts';
import { SCHEDULER_PERIOD_MS, startScheduler, type Scheduler } from './scheduler.ts';

/** Starts a scheduler for every workspace there is, and for each one added later. */
export function startWorkspaceSchedulers(
  platform: Platform,
  launcher: RunLauncher,
  periodMs = SCHEDULER_PERIOD_MS,
): Omit<Scheduler, 'next'> {
  const schedulers = new Map<string, Scheduler>();
  let stopped = false;
  const discover = async (): Promise<void> => {
    for (const workspace of await platform.registry.list()) {
      if (stopped || schedulers.has(workspace.id)) continue;
      schedulers.set(workspace.id, startScheduler(platform.engineFor(workspace.id), launcher, { periodMs }));
    }
  };
  const discovering = (): Promise<void> =>
    discover().catch((error: unknown) =>
      logLine(`handoff: could not list workspaces: ${errorMessage(error)}`),
    );
  let first = discovering();
  const timer = setInterval(() => void (first = discovering()), periodMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const scheduler of schedulers.values()) scheduler.stop();
    },
    async refresh() {
      await first;
      await Promise.all([...schedulers.values()].map((s) => s.refresh()));
    },
    async sweep() {
      await first;
      await Promise.all([...schedulers.values()].map((s) => s.sweep()));
    },
    async idle() {
      await first;
      await Promise.all([...schedulers.values()].map((s) => s.idle()));
    },
  };
}
