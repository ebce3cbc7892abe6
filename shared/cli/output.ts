/**
 * The exit codes of `handoff`, the same with and without `--json` (README, Command line):
 * 0 it worked (a run that paused for answers included), 1 the command failed, was refused,
 * or the run it ran failed, 2 the command line itself was wrong.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The exit code for a command that ran a run: non-zero only when the run failed. */
export function exitCodeForRun(status: string): number {
  return status === 'failed' ? EXIT.failed : EXIT.ok;
}

/** Prints exactly one JSON document to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints rows as aligned columns for people; long cells are shortened. */
export function printTable(headers: string[], rows: (string | number | null)[][], maxWidth = 48): void {
  if (rows.length === 0) return;
  const cells = [headers, ...rows.map((r) => r.map((c) => shorten(c === null ? '-' : String(c), maxWidth)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const [index, row] of cells.entries()) {
    const line = row.map((c, i) => (i === row.length - 1 ? c : (c ?? '').padEnd(widths[i]!))).join('  ');
    process.stdout.write(`${index === 0 ? line.toUpperCase() : line}\n`);
  }
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal. */
export function progressBar(label: string): { update(done: number, total?: number): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty) return;
      const width = 24;
      const filled = total ? Math.min(width, Math.round((done / total) * width)) : done % (width + 1);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
      process.stderr.write(`\r${label} ${bar} ${done}${total ? `/${total}` : ''}`);
      drawn = true;
    },
    end() {
      if (tty && drawn) process.stderr.write('\n');
    },
  };
}
