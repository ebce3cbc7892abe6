import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Credentials, MissingCredentialError } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { credentialsFor } from '../../shared/credentials/open-credentials.ts';
import { redact, redactedMessage, REDACTED, Secret } from '../../shared/credentials/secret.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { openStore } from '../../shared/store/open-store.ts';

const VALUE = 'xoxb-1234-5678-secret/value+with=chars';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-creds-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

async function allFiles(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('a Secret', () => {
  it('prints as [redacted] every way it can be printed', () => {
    const secret = new Secret(VALUE);
    expect(String(secret)).toBe(REDACTED);
    expect(`${secret}`).toBe(REDACTED);
    expect(JSON.stringify({ token: secret })).toBe(`{"token":"${REDACTED}"}`);
    expect(inspect({ token: secret })).not.toContain(VALUE);
    expect(Object.keys(secret)).toEqual([]);
    expect(secret.reveal()).toBe(VALUE);
  });

  it('refuses an empty value', () => {
    expect(() => new Secret('')).toThrow(/non-empty/);
  });
});

describe('redact', () => {
  it('removes a value as is, URL-encoded, JSON-escaped and base64-encoded', () => {
    const text = [
      `raw ${VALUE}`,
      `url ${encodeURIComponent(VALUE)}`,
      `json ${JSON.stringify({ v: VALUE })}`,
      `basic ${Buffer.from(VALUE).toString('base64')}`,
    ].join('\n');
    const out = redact(text, [new Secret(VALUE)]);
    expect(out).not.toContain(VALUE);
    expect(out).not.toContain(encodeURIComponent(VALUE));
    expect(out).not.toContain(Buffer.from(VALUE).toString('base64'));
    expect(out.match(/\[redacted\]/g)).toHaveLength(4);
  });

  it('redacts an error message', () => {
    expect(redactedMessage(new Error(`401: bad token ${VALUE}`), [new Secret(VALUE)])).toBe(
      '401: bad token [redacted]',
    );
  });
});

describe('the credential store', () => {
  it('keeps values sealed on disk and gives them back', async () => {
    const stateDir = path.join(dir, 'state');
    const credentials = new Credentials(new JsonFileStore(stateDir), LocalCipher.inStateDir(stateDir));
    const info = await credentials.set('SLACK_BOT_TOKEN', new Secret(VALUE));
    expect(info).toMatchObject({ name: 'SLACK_BOT_TOKEN', cipher: 'aes-256-gcm' });
    expect((await credentials.get('SLACK_BOT_TOKEN'))?.reveal()).toBe(VALUE);
    expect(await credentials.names()).toEqual(new Set(['SLACK_BOT_TOKEN']));
    for (const file of await allFiles(stateDir)) {
      const text = await fs.readFile(file, 'utf8');
      expect(text).not.toContain(VALUE);
      expect(text).not.toContain(Buffer.from(VALUE).toString('base64'));
    }
  });

  it('lists names and dates, never values', async () => {
    const credentials = new Credentials(new JsonFileStore(dir), LocalCipher.inStateDir(dir));
    await credentials.set('B_TOKEN', new Secret(VALUE));
    await credentials.set('A_TOKEN', new Secret(VALUE));
    const list = await credentials.list();
    expect(list.map((c) => c.name)).toEqual(['A_TOKEN', 'B_TOKEN']);
    expect(JSON.stringify(list)).not.toContain(VALUE);
  });

  it('names the credential that is missing and how to set it', async () => {
    const credentials = new Credentials(new JsonFileStore(dir), LocalCipher.inStateDir(dir));
    await credentials.set('A_TOKEN', new Secret(VALUE));
    await expect(credentials.resolve(['A_TOKEN', 'LINEAR_API_KEY'])).rejects.toThrow(MissingCredentialError);
    await expect(credentials.resolve(['LINEAR_API_KEY'])).rejects.toThrow(
      /handoff credentials set LINEAR_API_KEY/,
    );
  });

  it('refuses names that are not UPPER_SNAKE_CASE', async () => {
    const credentials = new Credentials(new JsonFileStore(dir), LocalCipher.inStateDir(dir));
    await expect(credentials.set('linear key', new Secret(VALUE))).rejects.toThrow(/UPPER_SNAKE_CASE/);
  });

  it('deletes a credential, and says so when there is none', async () => {
    const credentials = new Credentials(new JsonFileStore(dir), LocalCipher.inStateDir(dir));
    await credentials.set('A_TOKEN', new Secret(VALUE));
    await credentials.delete('A_TOKEN');
    expect(await credentials.get('A_TOKEN')).toBeUndefined();
    await expect(credentials.delete('A_TOKEN')).rejects.toThrow(/no credential named A_TOKEN/);
  });

  it('uses the local key file in HANDOFF_STATE_DIR unless a KMS key is configured', async () => {
    const env = loadEnv({ HANDOFF_STATE_DIR: dir });
    const credentials = credentialsFor(env, new JsonFileStore(dir), {});
    await credentials.set('A_TOKEN', new Secret(VALUE));
    expect((await fs.stat(path.join(dir, 'credentials.key'))).mode & 0o777).toBe(0o600);
  });

  it('are the engine’s: a value set from the CLI is what a run opens', async () => {
    const env = loadEnv({ HANDOFF_STATE_DIR: dir });
    // The CLI's store: the default workspace's.
    await credentialsFor(env, openStore(env), {}).set('A_TOKEN', new Secret(VALUE));
    const engine = engineFromEnv(env);
    expect((await engine.credentials.get('A_TOKEN'))?.reveal()).toBe(VALUE);
  });
});
