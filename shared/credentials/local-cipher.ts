import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CredentialDecryptError, CredentialKeyError, type CredentialCipher, type Sealed } from './cipher.ts';
import { Secret } from './secret.ts';

/** The key file's name inside HANDOFF_STATE_DIR. */
export const KEY_FILE = 'credentials.key';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The additional authenticated data: a sealed value opens only under the name it was sealed for. */
function aad(name: string): Buffer {
  return Buffer.from(`handoff-credential:${name}`, 'utf8');
}

/**
 * AES-256-GCM with a key file only its owner can read (mode 0600). A fresh random
 * IV per value; the auth tag is checked on every open. A key file that group or
 * others can read is refused, never used.
 */
export class LocalCipher implements CredentialCipher {
  readonly kind = 'local' as const;
  private key: Buffer | undefined;

  constructor(readonly keyFile: string) {}

  /** The cipher whose key is `<stateDir>/credentials.key`. */
  static inStateDir(stateDir: string): LocalCipher {
    return new LocalCipher(path.join(stateDir, KEY_FILE));
  }

  async seal(name: string, value: Secret): Promise<Sealed> {
    const key = await this.loadKey(true);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(name));
    const data = Buffer.concat([cipher.update(value.reveal(), 'utf8'), cipher.final()]);
    return {
      alg: 'aes-256-gcm',
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  async open(name: string, sealed: Sealed): Promise<Secret> {
    if (sealed.alg !== 'aes-256-gcm')
      throw new CredentialDecryptError(
        `credential ${name} was sealed with ${sealed.alg}, not the local key; set HANDOFF_KMS_KEY_ID to read it`,
      );
    const key = await this.loadKey(false);
    const iv = Buffer.from(sealed.iv, 'base64');
    const tag = Buffer.from(sealed.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new CredentialDecryptError(`credential ${name} is damaged (bad IV or tag); set it again`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(name));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return new Secret(plain.toString('utf8'));
    } catch (error) {
      throw new CredentialDecryptError(
        `credential ${name} cannot be decrypted: it was changed, or sealed with another key than ${this.keyFile}; set it again`,
        { cause: error },
      );
    }
  }

  private async loadKey(create: boolean): Promise<Buffer> {
    if (this.key) return this.key;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.keyFile, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (!create)
        throw new CredentialKeyError(
          `no key file at ${this.keyFile}: the credentials were sealed with a key that is gone; set them again`,
        );
      return (this.key = await this.createKey());
    }
    try {
      const stat = await handle.stat();
      checkPrivate(this.keyFile, stat);
      const key = Buffer.from((await handle.readFile('utf8')).trim(), 'base64');
      if (key.length !== KEY_BYTES)
        throw new CredentialKeyError(
          `${this.keyFile} does not hold a ${KEY_BYTES}-byte base64 key; restore it from a backup`,
        );
      return (this.key = key);
    } finally {
      await handle.close();
    }
  }

  /** Writes a new random key with mode 0600; if another process won the race, uses theirs. */
  private async createKey(): Promise<Buffer> {
    await fs.mkdir(path.dirname(this.keyFile), { recursive: true, mode: 0o700 });
    const key = randomBytes(KEY_BYTES);
    try {
      await fs.writeFile(this.keyFile, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return this.loadKey(false);
      throw error;
    }
  }
}

/** Refuses a key file that group or others may read or write, or that someone else owns. */
function checkPrivate(file: string, stat: { mode: number; uid: number }): void {
  const loose = stat.mode & 0o077;
  if (loose !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw new CredentialKeyError(
      `${file} is readable by group or others (mode ${mode}); refusing to use it. Run: chmod 600 ${file}`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new CredentialKeyError(
      `${file} belongs to uid ${stat.uid}, not to you (uid ${uid}); refusing to use it`,
    );
}
