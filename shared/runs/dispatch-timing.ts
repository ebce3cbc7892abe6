/**
 * How long a dispatch of a step to another process may take before it is presumed lost. Each is
 * longer than the Lambda function it waits on can run (lib/functions.ts; a test keeps
 * them in step), so a step that is still running is never taken from it.
 */

/** A step taken by a process that has not finished it after this is presumed dead with it (longest step: 15 min). */
export const STEP_LEASE_MS = 16 * 60_000;
/** A dispatch no process took after this is sent again (EventBridge delivers in well under a second). */
export const UNTAKEN_AFTER_MS = 5 * 60_000;
/** Times a dispatch is sent before the run is marked failed instead. */
export const MAX_SENDS = 3;
/** A scheduled run still in its trigger step after this lost its process (trigger timeout: 60 s). */
export const TRIGGER_LEASE_MS = 60_000;

/** An answer carried out as it arrives (while its run waits) that has not settled its claim after this died midway. */
export const ANSWER_CARRY_LEASE_MS = 2 * 60_000;

/** Whether `since` (an ISO time) is more than `ms` before `now`. */
export function olderThan(since: string | null, ms: number, now: Date): boolean {
  return since === null || now.getTime() - Date.parse(since) > ms;
}
