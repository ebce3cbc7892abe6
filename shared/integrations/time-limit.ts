import { isError } from '../errors/index.ts';
/**
 * Time limits for integration calls. The timer is our own and held until the call
 * settles: Node 20 may collect an AbortSignal.timeout that only AbortSignal.any refers
 * to, and then the call is never cut off.
 */

/**
 * Runs `run` with a signal that aborts after `ms`, or when `signal` (the caller's) does,
 * and rejects as soon as it aborts even if `run` ignores the signal. Cut off by the time
 * limit, it rejects with "no answer within <ms> ms"; cut off by the caller, with its reason.
 */
export async function withinTime<T>(
  ms: number,
  signal: AbortSignal | undefined,
  run: (limit: AbortSignal) => Promise<T>,
): Promise<T> {
  const limiter = new AbortController();
  const noAnswer = new Error(`no answer within ${ms} ms`);
  const timer = setTimeout(() => limiter.abort(noAnswer), ms);
  const forward = () => limiter.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  if (signal?.aborted) forward();
  try {
    return await untilAborted(run(limiter.signal), limiter.signal);
  } catch (error) {
    // A call the timer cut off may reject with its own abort error: say why it was cut off.
    throw limiter.signal.reason === noAnswer ? noAnswer : error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    Promise.resolve(promise) // a mocked SDK call may hand back a bare thenable
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', abort));
  });
}

/** An error as one line: `Name: message` (a bare Error without its name), first line only. */
export function oneLineError(error: unknown): string {
  const message = isError(error)
    ? error.name && error.name !== 'Error'
      ? `${error.name}: ${error.message}`
      : error.message
    : String(error);
  return (message.split('\n')[0] ?? '').trim();
}
