/**
 * A credential of one workspace is never readable from another: not listed there, not
 * opened there even if its sealed record is copied across (the seal is bound to its
 * workspace), and its value is in no file in plain text. Credentials from before
 * workspaces still open in `default`.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { openPlatform } from '../../shared/workspaces/platform.ts';

const VALUE = 'team-a-only-value-7f3e9c';
let dir: string | undefined;
afterEach(() => (dir ? fs.rm(dir, { recursive: true, force: true }) : undefined));

async function everyFileText(root: string): Promise<string> {
  const entries = await fs.readdir(root, { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => fs.readFile(f, 'latin1')))).join('\n');
}

it("keeps a workspace's credential out of every other workspace", async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-cred-'));
  const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') });
  const platform = await openPlatform(env);
  const a = platform.engineFor((await platform.registry.add('team-a')).id);
  const b = platform.engineFor((await platform.registry.add('team-b')).id);
  await a.credentials.set('SHARED_NAME', new Secret(VALUE));

  expect((await a.credentials.get('SHARED_NAME'))?.reveal()).toBe(VALUE);
  expect(await b.credentials.list()).toEqual([]);
  expect(await b.credentials.get('SHARED_NAME')).toBeUndefined();
  expect(await platform.engineFor('default').credentials.get('SHARED_NAME')).toBeUndefined();

  // Copied across by hand, the sealed record still does not open in team-b.
  await b.store.put('credentials', (await a.store.get('credentials', 'SHARED_NAME'))!);
  const opened = await b.credentials.get('SHARED_NAME').then(
    (secret) => `opened: ${secret?.reveal()}`,
    (error: unknown) => errorMessage(error),
  );
  expect(opened).not.toContain(VALUE);
  expect(opened).toMatch(/could not|cannot|decrypt/i);

  expect(await everyFileText(path.join(dir, 'state'))).not.toContain(VALUE);
});

it('opens a credential set before workspaces, in default', async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-cred-'));
  const state = path.join(dir, 'state');
  await fs.cp(path.join(import.meta.dirname, 'fixtures', 'legacy-state'), state, { recursive: true });
  // git keeps no file modes: give the keys the 0600 the previous version wrote them with.
  for (const key of ['credentials.key', 'link.key']) await fs.chmod(path.join(state, key), 0o600);
  const platform = await openPlatform(loadEnv({ HANDOFF_STATE_DIR: state }));
  const legacy = await platform.engineFor('default').credentials.get('LEGACY_TOKEN');
  expect(legacy?.reveal()).toBe('s3cret-legacy');
});
