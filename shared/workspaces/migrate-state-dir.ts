/**
 * Moves a state directory written before workspaces (collections at its top) into the
 * `default` workspace, on first start, losing nothing. Each collection directory and the
 * store's journal are renamed (atomic, no copy) into `workspaces/default.migrating/`, which
 * is renamed to `workspaces/default/` last: a process killed midway leaves the half-moved
 * folder, and the next start carries on from there. Running it again changes nothing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { InvalidInputError } from '../errors/index.ts';
import { COLLECTIONS } from '../store/store.ts';
import { encodeId } from '../store/json-file-store.ts';
import { WORKSPACES_DIR, workspaceDir } from './layout.ts';
import { DEFAULT_WORKSPACE } from './names.ts';
import { pathExists } from '../config/files.ts';

/** What the JSON-file store kept at the top of the state directory, besides collections. */
const STORE_FILES = ['.journal', '.pending'];

/** Moves top-level collections into the default workspace; returns how many entries it moved. */
export async function migrateStateDir(stateDir: string): Promise<number> {
  const legacy = await legacyEntries(stateDir);
  const target = workspaceDir(stateDir, DEFAULT_WORKSPACE);
  const staging = `${target}.migrating`;
  if (legacy.length === 0 && !(await pathExists(staging))) return 0;
  if (legacy.length > 0 && (await pathExists(target)))
    throw new InvalidInputError(
      `${stateDir} holds records both at its top and in ${WORKSPACES_DIR}/${DEFAULT_WORKSPACE}: move one of them away by hand`,
    );
  await fs.mkdir(staging, { recursive: true, mode: 0o700 });
  for (const name of legacy) await fs.rename(path.join(stateDir, name), path.join(staging, name));
  await fs.rm(path.join(stateDir, '.store.lock'), { force: true });
  await fs.rename(staging, target);
  return legacy.length;
}

async function legacyEntries(stateDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(stateDir);
  } catch {
    return [];
  }
  const known = new Set([...COLLECTIONS.map((c) => encodeId(c)), ...STORE_FILES]);
  return names.filter((n) => known.has(n) && n !== WORKSPACES_DIR);
}
