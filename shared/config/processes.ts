/** Whether a process of this host is still running (EPERM: it is, under another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * For crash tests only: when `HANDOFF_CRASH_AT` names this point, the process kills itself
 * with SIGKILL right here, with no cleanup, as `kill -9` or a power cut would. Tests use it
 * to stop a real process at a precise moment instead of racing it. Unset, it does nothing.
 */
export function crashPoint(name: string): void {
  if (process.env.HANDOFF_CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}

const held = new Set<string>();

/**
 * For tests only: when `HANDOFF_HOLD_AT` names this point, the process stops itself
 * (SIGSTOP) the first time it gets here, so a test sees the state at that precise moment
 * (a run part-way through) and then lets it go on with SIGCONT. Unset, it does nothing.
 */
export function holdPoint(name: string): void {
  if (process.env.HANDOFF_HOLD_AT !== name || held.has(name)) return;
  held.add(name);
  process.kill(process.pid, 'SIGSTOP');
}
