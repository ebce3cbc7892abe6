import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CredentialDecryptError, CredentialKeyError, type Sealed } from '../../shared/credentials/cipher.ts';
import { KEY_FILE, LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { Secret } from '../../shared/credentials/secret.ts';

const VALUE = 'lin_api_0123456789abcdef';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-cipher-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

function flipFirstByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  return bytes.toString('base64');
}

describe('the local cipher (AES-256-GCM, key file only its owner can read)', () => {
  it('round-trips a value, and the sealed form holds nothing of it', async () => {
    const cipher = LocalCipher.inStateDir(path.join(dir, 'state'));
    const sealed = await cipher.seal('LINEAR_API_KEY', new Secret(VALUE));
    expect(JSON.stringify(sealed)).not.toContain(VALUE);
    expect(JSON.stringify(sealed)).not.toContain(Buffer.from(VALUE).toString('base64'));
    expect((await cipher.open('LINEAR_API_KEY', sealed)).reveal()).toBe(VALUE);
  });

  it('uses a fresh random IV for every value, so equal values seal differently', async () => {
    const cipher = LocalCipher.inStateDir(dir);
    const a = await cipher.seal('A_TOKEN', new Secret(VALUE));
    const b = await cipher.seal('A_TOKEN', new Secret(VALUE));
    expect(a.alg === 'aes-256-gcm' && b.alg === 'aes-256-gcm' && a.iv !== b.iv && a.data !== b.data).toBe(
      true,
    );
  });

  it('creates its key file with mode 0600 on first use', async () => {
    const stateDir = path.join(dir, 'fresh', 'state');
    await LocalCipher.inStateDir(stateDir).seal('A_TOKEN', new Secret(VALUE));
    const stat = await fs.stat(path.join(stateDir, KEY_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it('detects a flipped byte in the ciphertext or the tag', async () => {
    const cipher = LocalCipher.inStateDir(dir);
    const sealed = await cipher.seal('A_TOKEN', new Secret(VALUE));
    if (sealed.alg !== 'aes-256-gcm') throw new Error('expected AES-GCM');
    const tampered: Sealed[] = [
      { ...sealed, data: flipFirstByte(sealed.data) },
      { ...sealed, tag: flipFirstByte(sealed.tag) },
      { ...sealed, iv: flipFirstByte(sealed.iv) },
    ];
    for (const t of tampered)
      await expect(cipher.open('A_TOKEN', t)).rejects.toBeInstanceOf(CredentialDecryptError);
  });

  it('refuses a value opened under another credential name (the name is authenticated)', async () => {
    const cipher = LocalCipher.inStateDir(dir);
    const sealed = await cipher.seal('GITHUB_TOKEN', new Secret(VALUE));
    await expect(cipher.open('LINEAR_API_KEY', sealed)).rejects.toThrow(/cannot be decrypted/);
  });

  it('refuses to open a value with the wrong key, and says what to do', async () => {
    const sealed = await LocalCipher.inStateDir(path.join(dir, 'one')).seal('A_TOKEN', new Secret(VALUE));
    const other = LocalCipher.inStateDir(path.join(dir, 'two'));
    await other.seal('OTHER', new Secret('something-else')); // makes the second key
    const error = await other.open('A_TOKEN', sealed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialDecryptError);
    expect(String(error)).toMatch(/set it again/);
    expect(String(error)).not.toContain(VALUE);
  });

  it.each([0o644, 0o640, 0o604, 0o660])('refuses a key file with mode %o, naming the fix', async (mode) => {
    const cipher = LocalCipher.inStateDir(dir);
    const sealed = await cipher.seal('A_TOKEN', new Secret(VALUE));
    const keyFile = path.join(dir, KEY_FILE);
    await fs.chmod(keyFile, mode);
    const fresh = LocalCipher.inStateDir(dir);
    const error = await fresh.open('A_TOKEN', sealed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialKeyError);
    expect(String(error)).toContain(`chmod 600 ${keyFile}`);
    await expect(fresh.seal('B_TOKEN', new Secret(VALUE))).rejects.toBeInstanceOf(CredentialKeyError);
  });

  it('says so when the key file is gone instead of making a new one to open with', async () => {
    const cipher = LocalCipher.inStateDir(dir);
    const sealed = await cipher.seal('A_TOKEN', new Secret(VALUE));
    await fs.rm(path.join(dir, KEY_FILE));
    await expect(LocalCipher.inStateDir(dir).open('A_TOKEN', sealed)).rejects.toThrow(/no key file/);
  });

  it('refuses a key file that does not hold a 32-byte key', async () => {
    await fs.writeFile(path.join(dir, KEY_FILE), 'c2hvcnQ=\n', { mode: 0o600 });
    await expect(LocalCipher.inStateDir(dir).seal('A_TOKEN', new Secret(VALUE))).rejects.toThrow(/32-byte/);
  });
});
