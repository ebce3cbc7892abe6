import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import {
  clearServerAddress,
  recordServerAddress,
  runningServerUrl,
} from '../../shared/config/server-address.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'handoff-address-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it("a CLI engine links to the running server's real port, not PORT's guess", () => {
  const env = loadEnv({ HANDOFF_STATE_DIR: dir });
  expect(engineFromEnv(env).settings.uiBaseUrl).toBe('http://127.0.0.1:3000');
  recordServerAddress(dir, 'http://127.0.0.1:4310');
  expect(runningServerUrl(dir)).toBe('http://127.0.0.1:4310');
  expect(engineFromEnv(env).settings.uiBaseUrl).toBe('http://127.0.0.1:4310');
  clearServerAddress(dir);
  expect(runningServerUrl(dir)).toBeNull();
});

it('ignores the address of a server that died', async () => {
  await writeFile(
    path.join(dir, 'server.json'),
    JSON.stringify({ url: 'http://127.0.0.1:4310', pid: 2 ** 22 + 7 }),
  );
  expect(runningServerUrl(dir)).toBeNull();
});
