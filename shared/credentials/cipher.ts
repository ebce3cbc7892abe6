import { z } from 'zod';
import { HandoffError } from '../errors/index.ts';
import type { Secret } from './secret.ts';

/** A sealed credential as stored: never the value, only what a cipher can open again. */
export const SealedSchema = z.discriminatedUnion('alg', [
  z.strictObject({
    alg: z.literal('aes-256-gcm'),
    iv: z.string().min(1),
    tag: z.string().min(1),
    data: z.string().min(1),
  }),
  z.strictObject({
    alg: z.literal('aws-kms'),
    key_id: z.string().min(1),
    blob: z.string().min(1),
  }),
]);
export type Sealed = z.infer<typeof SealedSchema>;

/** Encrypts credential values at rest. The credential's name is bound to its ciphertext. */
export interface CredentialCipher {
  readonly kind: 'local' | 'kms';
  seal(name: string, value: Secret): Promise<Sealed>;
  open(name: string, sealed: Sealed): Promise<Secret>;
}

/** The local key file is missing, malformed or readable by others. */
export class CredentialKeyError extends HandoffError {}

/** A sealed value did not open: changed on disk, sealed under another key, or refused by KMS. */
export class CredentialDecryptError extends HandoffError {}
