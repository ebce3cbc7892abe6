import { z } from 'zod';
import { HandoffError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import type { Collection, Store } from '../store/store.ts';
import { SealedSchema, type CredentialCipher } from './cipher.ts';
import type { Secret } from './secret.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

const COLLECTION: Collection = 'credentials';

/** Credential names read like environment variables: LINEAR_API_KEY. */
export const CREDENTIAL_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
export const CredentialNameSchema = z
  .string()
  .regex(CREDENTIAL_NAME, { message: 'must be UPPER_SNAKE_CASE, like LINEAR_API_KEY' });

export const CREDENTIAL_SCHEMA_VERSION = 1;
export const READABLE_CREDENTIAL_VERSIONS: readonly number[] = [1];

const CredentialRecordSchema = z.object({
  id: CredentialNameSchema,
  schemaVersion: z.number().int(),
  sealed: SealedSchema,
  updated_at: z.string(),
});
type CredentialRecord = z.infer<typeof CredentialRecordSchema>;

/** What may be shown about a credential: never its value. */
export interface CredentialInfo {
  name: string;
  cipher: 'aes-256-gcm' | 'aws-kms';
  updated_at: string;
}

/** A credential an integration needs has not been set. */
export class MissingCredentialError extends HandoffError {}

/**
 * Credential values, sealed at rest with the given cipher; only names are ever listed.
 * Outside the default workspace the seal is bound to the workspace too (its id in the
 * cipher's associated data), so a sealed value copied into another workspace does not open.
 */
export class Credentials {
  constructor(
    private readonly store: Store,
    private readonly cipher: CredentialCipher,
    private readonly workspace: string = DEFAULT_WORKSPACE,
  ) {}

  /** What the cipher binds the value to: its name, and its workspace outside `default`. */
  private sealedAs(name: string): string {
    return this.workspace === DEFAULT_WORKSPACE ? name : `${this.workspace}/${name}`;
  }

  async set(name: string, value: Secret): Promise<CredentialInfo> {
    checkName(name);
    const record: CredentialRecord = {
      id: name,
      schemaVersion: CREDENTIAL_SCHEMA_VERSION,
      sealed: await this.cipher.seal(this.sealedAs(name), value),
      updated_at: new Date().toISOString(),
    };
    await this.store.put(COLLECTION, record);
    return info(record);
  }

  /** The value, or undefined when none is set. Throws if it is set but cannot be opened. */
  async get(name: string): Promise<Secret | undefined> {
    checkName(name);
    const raw = await this.store.get(COLLECTION, name);
    if (!raw) return undefined;
    const record = parseRecord(CredentialRecordSchema, COLLECTION, raw);
    if (!READABLE_CREDENTIAL_VERSIONS.includes(record.schemaVersion))
      throw new HandoffError(
        `credential ${name} was written as v${record.schemaVersion}; this build reads v${READABLE_CREDENTIAL_VERSIONS.join(', v')}`,
      );
    return this.cipher.open(this.sealedAs(name), record.sealed);
  }

  /** Every value named, or MissingCredentialError naming the first that is not set. */
  async resolve(names: Iterable<string>): Promise<Map<string, Secret>> {
    const values = new Map<string, Secret>();
    for (const name of new Set(names)) {
      const value = await this.get(name);
      if (!value)
        throw new MissingCredentialError(
          `credential ${name} is not set: run handoff credentials set ${name}`,
        );
      values.set(name, value);
    }
    return values;
  }

  /** Names of the credentials that are set (nothing is decrypted). */
  async names(): Promise<Set<string>> {
    return new Set((await this.list()).map((c) => c.name));
  }

  async list(): Promise<CredentialInfo[]> {
    const records = await this.store.list(COLLECTION);
    return records
      .map((raw) => info(parseRecord(CredentialRecordSchema, COLLECTION, raw)))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async delete(name: string): Promise<void> {
    checkName(name);
    if (!(await this.store.get(COLLECTION, name))) throw new NotFoundError(`no credential named ${name}`);
    await this.store.delete(COLLECTION, name);
  }
}

function checkName(name: string): void {
  if (!CREDENTIAL_NAME.test(name))
    throw new InvalidInputError(`credential name "${name}" must be UPPER_SNAKE_CASE, like LINEAR_API_KEY`);
}

function info(record: CredentialRecord): CredentialInfo {
  return { name: record.id, cipher: record.sealed.alg, updated_at: record.updated_at };
}
