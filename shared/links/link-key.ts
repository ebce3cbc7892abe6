import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Where the link-signing key comes from: a local key file, or a secret on AWS. */
export interface LinkKey {
  get(): Promise<Buffer>;
}

/** A 32-byte key in `<stateDir>/link.key`, created on first use, readable only by its owner. */
export class FileLinkKey implements LinkKey {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly stateDir: string) {}

  get(): Promise<Buffer> {
    this.key ??= this.load();
    return this.key;
  }

  private async load(): Promise<Buffer> {
    const file = path.join(this.stateDir, 'link.key');
    try {
      return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await fs.mkdir(this.stateDir, { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    try {
      await fs.writeFile(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64'); // another process won
    }
  }
}
