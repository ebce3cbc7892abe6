/**
 * Calls `check` until it returns without throwing (its value is returned) or the time is up
 * (the last error is thrown).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  opts: { timeout?: number; interval?: number } = {},
): Promise<T> {
  const timeout = opts.timeout ?? 1_000;
  const interval = opts.interval ?? 50;
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }
}
