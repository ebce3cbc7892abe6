import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { regionOption } from '../config/aws-region.ts';
import { InvalidInputError, isError } from '../errors/index.ts';
import { CredentialDecryptError, type CredentialCipher, type Sealed } from './cipher.ts';
import { Secret } from './secret.ts';
import { needs } from '../config/needs.ts';

needs('credentialsKey'); // kms:Decrypt (and Encrypt, to seal) on HANDOFF_KMS_KEY_ID

/** KMS Encrypt takes at most 4 KiB of plaintext; credentials are tokens, far smaller. */
const MAX_PLAINTEXT = 4096;

/** Binds a ciphertext to its credential: KMS refuses to decrypt it under another name. */
function encryptionContext(name: string): Record<string, string> {
  return { purpose: 'handoff-credential', credential: name };
}

/** Seals credentials with AWS KMS (Encrypt/Decrypt under one key, with an encryption context). */
export class KmsCipher implements CredentialCipher {
  readonly kind = 'kms' as const;

  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(name: string, value: Secret): Promise<Sealed> {
    const plaintext = Buffer.from(value.reveal(), 'utf8');
    if (plaintext.length > MAX_PLAINTEXT)
      throw new InvalidInputError(`credential ${name} is longer than ${MAX_PLAINTEXT} bytes`);
    const out = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: plaintext,
        EncryptionContext: encryptionContext(name),
      }),
    );
    if (!out.CiphertextBlob) throw new CredentialDecryptError(`KMS returned no ciphertext for ${name}`);
    return {
      alg: 'aws-kms',
      key_id: out.KeyId ?? this.keyId,
      blob: Buffer.from(out.CiphertextBlob).toString('base64'),
    };
  }

  async open(name: string, sealed: Sealed): Promise<Secret> {
    if (sealed.alg !== 'aws-kms')
      throw new CredentialDecryptError(
        `credential ${name} was sealed with the local key file, not KMS; set it again on this deployment`,
      );
    let plaintext: Uint8Array | undefined;
    try {
      const out = await this.client.send(
        new DecryptCommand({
          KeyId: sealed.key_id,
          CiphertextBlob: Buffer.from(sealed.blob, 'base64'),
          EncryptionContext: encryptionContext(name),
        }),
      );
      plaintext = out.Plaintext;
    } catch (error) {
      const reason = isError(error) ? error.name : 'unknown error';
      throw new CredentialDecryptError(`KMS could not decrypt credential ${name} (${reason})`, {
        cause: error,
      });
    }
    if (!plaintext) throw new CredentialDecryptError(`KMS returned no plaintext for ${name}`);
    return new Secret(Buffer.from(plaintext).toString('utf8'));
  }
}

/** A KmsCipher under `keyId` with a new KMS client for `region` (the SDK's default region when unset). */
export function kmsCipherIn(region: string | undefined, keyId: string): KmsCipher {
  return new KmsCipher(new KMSClient(regionOption(region)), keyId);
}
