/**
 * Two writer processes racing over the same ids of one state directory: each child prints
 * "ready", both are told "go" together, and each prints one JSON line of outcomes, one per
 * id in order. The child side is `raceChild` (test/store/fixtures/race-child.ts).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** One racing writer: its name, the outcome it printed for each id, and its exit code. */
export interface RaceResult {
  writer: string;
  outcomes: string[];
  exitCode: number | null;
}

/** Runs `fixture` as writers "a" and "b" over `ids` in `stateDir`, started together. */
export async function raceTwoWriters(
  fixture: string,
  stateDir: string,
  ids: readonly string[],
): Promise<RaceResult[]> {
  const children = ['a', 'b'].map((writer) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, stateDir, writer, ...ids], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { writer, child, lines, exited };
  });
  for (const c of children) {
    const first = (await c.lines.next()).value as string | undefined;
    if (first !== 'ready') throw new Error(`writer ${c.writer} said ${JSON.stringify(first)}, not "ready"`);
  }
  for (const c of children) c.child.stdin.end('go\n');
  return Promise.all(
    children.map(async (c) => ({
      writer: c.writer,
      outcomes: JSON.parse(String((await c.lines.next()).value)) as string[],
      exitCode: await c.exited,
    })),
  );
}
