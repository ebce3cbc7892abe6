/**
 * A state directory written by the version before workspaces (collections at its top;
 * `fixtures/legacy-state`, made by that version's CLI: a workflow, a paused run with five
 * questions, a rule you set, a credential) moves into the `default` workspace on first
 * start, losing nothing; a second start changes nothing; a start killed midway is finished
 * by the next.
 *
 * The fixture's record files are byte for byte what the store writes (prettier leaves the folder
 * alone): its journal is from another boot, so the first start replays it over them. Its
 * questions' deadlines are in 2099, so the CLI's housekeeping never expires them on the day
 * the suite runs (fixture-deadlines.test.ts keeps every fixture so).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { migrateStateDir } from '../../shared/workspaces/migrate-state-dir.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { hashTree } from '../support/hash-tree.ts';

const LEGACY = path.join(import.meta.dirname, 'fixtures', 'legacy-state');
const LEGACY_COLLECTIONS = [
  'audit',
  'credentials',
  'decisions',
  'interrupts',
  'outcomes',
  'rules',
  'runs',
  'sessions',
  'tickets',
  'usage',
  'workflows',
];

let dir: string | undefined;
afterEach(() => (dir ? fs.rm(dir, { recursive: true, force: true }) : undefined));

async function legacyCopy(): Promise<string> {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-migrate-'));
  const state = path.join(dir, 'state');
  await fs.cp(LEGACY, state, { recursive: true });
  // git keeps no file modes: give the keys the 0600 the previous version wrote them with.
  for (const key of ['credentials.key', 'link.key']) await fs.chmod(path.join(state, key), 0o600);
  return state;
}

/** Every record file of the legacy layout, keyed as it must appear under workspaces/default. */
async function legacyRecords(): Promise<Record<string, string>> {
  const all = await hashTree(LEGACY);
  return Object.fromEntries(
    Object.entries(all).filter(([file]) => LEGACY_COLLECTIONS.includes(file.split(path.sep)[0]!)),
  );
}

describe('migrating a state directory from before workspaces', () => {
  it('moves every record into the default workspace and the CLI reads them all', async () => {
    const state = await legacyCopy();
    const env = { HANDOFF_STATE_DIR: state };
    const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
    expect(runs).toEqual([expect.objectContaining({ status: 'waiting' })]);
    const pending = await cliJson<{ decision_id: string }[]>(['pending'], env);
    expect(pending).toHaveLength(5);
    const rules = await cliJson<{ match: unknown; note?: string }[]>(['rules'], env);
    expect(rules).toEqual([
      expect.objectContaining({ match: { sender: 'tomi.okafor@fastmail.example' }, note: 'legacy rule' }),
    ]);
    expect(await cliJson(['credentials'], env)).toEqual([expect.objectContaining({ name: 'LEGACY_TOKEN' })]);
    expect(await cliJson(['workspaces'], env)).toEqual([
      expect.objectContaining({ id: 'default', name: 'default', workflows: 1, pending: 5 }),
    ]);

    // Every record file is in workspaces/default, byte for byte; the keys stay at the top.
    const moved = await hashTree(path.join(state, 'workspaces', 'default'));
    for (const [file, hash] of Object.entries(await legacyRecords())) expect(moved[file]).toBe(hash);
    const top = (await fs.readdir(state)).sort();
    expect(top).toEqual(['credentials.key', 'link.key', 'workspaces']);

    // A second start changes nothing; the old questions can still be answered.
    const before = await hashTree(path.join(state, 'workspaces', 'default'));
    expect(await migrateStateDir(state)).toBe(0);
    expect(await hashTree(path.join(state, 'workspaces', 'default'))).toEqual(before);
    const answered = await runCli(['decide', pending[0]!.decision_id, 'skip', '--json'], env);
    expect(answered.code).toBe(0);
    expect(await cliJson(['pending'], env)).toHaveLength(4);
  });

  it('finishes a migration that was killed midway', async () => {
    const state = await legacyCopy();
    // As a kill after the first renames leaves it: some collections moved, the rest not.
    const staging = path.join(state, 'workspaces', 'default.migrating');
    await fs.mkdir(staging, { recursive: true });
    for (const name of ['runs', 'decisions', 'rules'])
      await fs.rename(path.join(state, name), path.join(staging, name));

    expect(await migrateStateDir(state)).toBe(LEGACY_COLLECTIONS.length - 3 + 1); // + the journal
    const moved = await hashTree(path.join(state, 'workspaces', 'default'));
    for (const [file, hash] of Object.entries(await legacyRecords())) expect(moved[file]).toBe(hash);
    expect(await cliJson(['pending'], { HANDOFF_STATE_DIR: state })).toHaveLength(5);
  });

  it('refuses, changing nothing, when records are both at the top and in workspaces/default', async () => {
    const state = await legacyCopy();
    await fs.mkdir(path.join(state, 'workspaces', 'default', 'runs'), { recursive: true });
    const before = await hashTree(state);
    const result = await runCli(['runs'], { HANDOFF_STATE_DIR: state });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/holds records both at its top and in workspaces\/default/);
    expect(await hashTree(state)).toEqual(before);
  });
});
