import { errorMessage } from '../errors/index.ts';
/** What one check found: it works (and how), or why it does not. */
export type CheckOutcome = { ok: true; detail: string } | { ok: false; reason: string };

/** One real call against one configured service. */
export interface Check {
  name: string;
  run(): Promise<CheckOutcome>;
}

/** A check's outcome as `handoff doctor --json` prints it. */
export type CheckResult =
  { check: string; ok: true; detail: string } | { check: string; ok: false; reason: string };

export const CHECK_TIMEOUT_MS = 20_000;

export const ok = (detail: string): CheckOutcome => ({ ok: true, detail });
export const broken = (reason: string): CheckOutcome => ({ ok: false, reason });

/**
 * Runs every check at once; a check that throws or outlasts the timeout is broken with
 * a one-line reason. Results keep the checks' order.
 */
export async function runChecks(
  checks: readonly Check[],
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async (check): Promise<CheckResult> => {
      const outcome = await withTimeout(check, timeoutMs);
      return outcome.ok
        ? { check: check.name, ok: true, detail: oneLine(outcome.detail) }
        : { check: check.name, ok: false, reason: oneLine(outcome.reason) };
    }),
  );
}

/** Non-zero when anything is broken, so scripts and CI can rely on `handoff doctor`. */
export function exitCodeFor(results: readonly CheckResult[]): number {
  return results.every((r) => r.ok) ? 0 : 1;
}

/** One line per check, for people: `ok    name  detail` or `FAIL  name  reason`. */
export function describeResults(results: readonly CheckResult[]): string[] {
  const width = Math.max(0, ...results.map((r) => r.check.length));
  return results.map((r) =>
    r.ok ? `ok    ${r.check.padEnd(width)}  ${r.detail}` : `FAIL  ${r.check.padEnd(width)}  ${r.reason}`,
  );
}

async function withTimeout(check: Check, ms: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve(broken(`no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([check.run().catch((error: unknown) => broken(messageOf(error))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return errorMessage(error);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}
