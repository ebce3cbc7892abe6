/**
 * Where the local server listens, written to `<state dir>/server.json` while it runs, so a
 * CLI process that notifies (`handoff run`) links to the server's real address and port
 * rather than guessing from PORT.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isAlive } from './processes.ts';

const FILE = 'server.json';
const AddressSchema = z.object({ url: z.url(), pid: z.number().int() });

/** Notes that this process serves the state directory at `url`. */
export function recordServerAddress(stateDir: string, url: string): void {
  try {
    writeFileSync(path.join(stateDir, FILE), `${JSON.stringify({ url, pid: process.pid })}\n`);
  } catch {
    // A state directory we cannot write to only costs the CLI's links their port.
  }
}

/** Forgets the address, when this process wrote it. */
export function clearServerAddress(stateDir: string): void {
  if (readAddress(stateDir)?.pid === process.pid) rmSync(path.join(stateDir, FILE), { force: true });
}

/** The address of the server running on this state directory, or null (none, or it died). */
export function runningServerUrl(stateDir: string): string | null {
  const address = readAddress(stateDir);
  return address && isAlive(address.pid) ? address.url : null;
}

function readAddress(stateDir: string): z.infer<typeof AddressSchema> | null {
  try {
    const parsed = AddressSchema.safeParse(JSON.parse(readFileSync(path.join(stateDir, FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
