import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CredentialDecryptError } from '../../shared/credentials/cipher.ts';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { KmsCipher } from '../../shared/credentials/kms-cipher.ts';
import { credentialsFor, kmsOnlyCredentials } from '../../shared/credentials/open-credentials.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import type { JsonRecord, Store } from '../../shared/store/store.ts';

const KEY = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const VALUE = 'ghp_notARealTokenButLongEnough42';
const BLOB = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
const CONTEXT = { purpose: 'handoff-credential', credential: 'GITHUB_TOKEN' };

const kms = mockClient(KMSClient);
afterEach(() => {
  kms.reset();
});

/** A tiny in-memory store: enough to see what the credential repository writes. */
function memoryStore(): Store & { records: Map<string, JsonRecord> } {
  const records = new Map<string, JsonRecord>();
  return {
    records,
    get: async (c, id) => records.get(`${c}/${id}`),
    list: async (c) => [...records].filter(([k]) => k.startsWith(`${c}/`)).map(([, v]) => v),
    listWithStatus: async (c, s) =>
      [...records].filter(([k, v]) => k.startsWith(`${c}/`) && v.status === s).map(([, v]) => v),
    create: async (c, r) => (records.set(`${c}/${r.id}`, { ...r, version: 1 }), { ...r, version: 1 }),
    update: async (c, r, v) => (
      records.set(`${c}/${r.id}`, { ...r, version: v + 1 }),
      { ...r, version: v + 1 }
    ),
    put: async (c, r) => void records.set(`${c}/${r.id}`, r),
    delete: async (c, id) => void records.delete(`${c}/${id}`),
  };
}

describe('the KMS cipher', () => {
  it('encrypts under the key with the credential name as encryption context', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
    const sealed = await new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY).seal(
      'GITHUB_TOKEN',
      new Secret(VALUE),
    );
    expect(sealed).toEqual({ alg: 'aws-kms', key_id: KEY, blob: Buffer.from(BLOB).toString('base64') });
    const calls = kms.commandCalls(EncryptCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input.KeyId).toBe(KEY);
    expect(input.EncryptionContext).toEqual(CONTEXT);
    expect(Buffer.from(input.Plaintext!).toString('utf8')).toBe(VALUE);
  });

  it('decrypts the stored blob with the same key and context', async () => {
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from(VALUE), KeyId: KEY });
    const cipher = new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY);
    const secret = await cipher.open('GITHUB_TOKEN', {
      alg: 'aws-kms',
      key_id: KEY,
      blob: Buffer.from(BLOB).toString('base64'),
    });
    expect(secret.reveal()).toBe(VALUE);
    const input = kms.commandCalls(DecryptCommand)[0]!.args[0].input;
    expect(input.KeyId).toBe(KEY);
    expect(input.EncryptionContext).toEqual(CONTEXT);
    expect(Buffer.from(input.CiphertextBlob!)).toEqual(Buffer.from(BLOB));
  });

  it('turns a KMS refusal into a CredentialDecryptError that names the credential only', async () => {
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error('bad ciphertext'), { name: 'InvalidCiphertextException' }));
    const cipher = new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY);
    const error = await cipher
      .open('GITHUB_TOKEN', { alg: 'aws-kms', key_id: KEY, blob: 'AQID' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialDecryptError);
    expect(String(error)).toMatch(/GITHUB_TOKEN.*InvalidCiphertextException/);
  });

  it('refuses a value sealed with the local key file instead of sending it to KMS', async () => {
    const cipher = new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY);
    await expect(
      cipher.open('GITHUB_TOKEN', { alg: 'aes-256-gcm', iv: 'a', tag: 'b', data: 'c' }),
    ).rejects.toThrow(/local key file/);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
  });

  it('backs the credential store: the record holds the KMS blob, never the value', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from(VALUE), KeyId: KEY });
    const store = memoryStore();
    const credentials = new Credentials(store, new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY));
    expect(await credentials.set('GITHUB_TOKEN', new Secret(VALUE))).toMatchObject({ cipher: 'aws-kms' });
    expect(JSON.stringify([...store.records.values()])).not.toContain(VALUE);
    expect((await credentials.get('GITHUB_TOKEN'))?.reveal()).toBe(VALUE);
  });

  it('is chosen when HANDOFF_KMS_KEY_ID is set', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
    const env = loadEnv({ HANDOFF_STATE_DIR: '/nonexistent/handoff', AWS_REGION: 'eu-west-1' });
    const credentials = credentialsFor(env, memoryStore(), { HANDOFF_KMS_KEY_ID: KEY });
    expect(await credentials.set('GITHUB_TOKEN', new Secret(VALUE))).toMatchObject({ cipher: 'aws-kms' });
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input.KeyId).toBe(KEY);
  });
});

describe('credentials on a host without a lasting disk (Lambda)', () => {
  it('are sealed with KMS when HANDOFF_KMS_KEY_ID is set', async () => {
    kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from(VALUE), KeyId: KEY });
    const credentials = kmsOnlyCredentials('eu-west-1', memoryStore(), { HANDOFF_KMS_KEY_ID: KEY });
    expect(await credentials.set('GITHUB_TOKEN', new Secret(VALUE))).toMatchObject({ cipher: 'aws-kms' });
    expect((await credentials.get('GITHUB_TOKEN'))?.reveal()).toBe(VALUE);
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext).toEqual(CONTEXT);
  });

  it('without a KMS key, list names but refuse to seal or open a value, naming the variable', async () => {
    const store = memoryStore();
    kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
    // Set by a host that has the key (the CLI with HANDOFF_KMS_KEY_ID).
    await new Credentials(store, new KmsCipher(new KMSClient({ region: 'eu-west-1' }), KEY)).set(
      'GITHUB_TOKEN',
      new Secret(VALUE),
    );
    const credentials = kmsOnlyCredentials('eu-west-1', store, {});

    expect(await credentials.names()).toEqual(new Set(['GITHUB_TOKEN']));
    await expect(credentials.get('GITHUB_TOKEN')).rejects.toThrow(
      /^HANDOFF_KMS_KEY_ID is not set for this function/,
    );
    await expect(credentials.set('OTHER_TOKEN', new Secret(VALUE))).rejects.toThrow(/HANDOFF_KMS_KEY_ID/);
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
  });
});
