import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { HandoffError } from '../errors/index.ts';
import type { LinkKey } from '../links/link-key.ts';
import type { ClientRef } from './lazy-client.ts';
import type { LambdaClients } from './clients.ts';
import { SecretValue } from './secret-value.ts';
import { needs } from '../config/needs.ts';

needs('linkKey'); // secretsmanager:GetSecretValue on LINK_KEY_SECRET_ARN

/** Shorter keys are refused: HMAC-SHA256 wants at least 32 bytes of secret. */
export const MIN_KEY_BYTES = 32;

/**
 * The link-signing key from a Secrets Manager secret, read once per container. The
 * SecretString is base64 (what `openssl rand -base64 32` prints) or, failing that, the raw
 * text's UTF-8 bytes (a generated password). Either way at least 32 bytes.
 */
export class SecretLinkKey implements LinkKey {
  private readonly secret: SecretValue;
  private key: Promise<Buffer> | undefined;

  constructor(client: ClientRef<SecretsManagerClient>, secretId: string) {
    this.secret = new SecretValue(client, secretId);
  }

  get(): Promise<Buffer> {
    this.key ??= this.secret
      .get()
      .then(linkKeyFromSecret)
      .catch((error: unknown) => {
        this.key = undefined;
        throw error;
      });
    return this.key;
  }
}

/** Decodes a secret string into key bytes (see SecretLinkKey). */
export function linkKeyFromSecret(text: string): Buffer {
  const decoded = Buffer.from(text, 'base64');
  const isBase64 =
    /^[A-Za-z0-9+/]+={0,2}$/.test(text) &&
    decoded.toString('base64') === text &&
    decoded.length >= MIN_KEY_BYTES;
  const key = isBase64 ? decoded : Buffer.from(text, 'utf8');
  if (key.length < MIN_KEY_BYTES)
    throw new HandoffError(
      `the link key secret is ${key.length} bytes; it needs at least ${MIN_KEY_BYTES} (e.g. openssl rand -base64 32)`,
    );
  return key;
}

/** The link key in LINK_KEY_SECRET_ARN, read once (the function must be bound to `linkKey`). */
export function linkKeyFor(
  env: { LINK_KEY_SECRET_ARN?: string | undefined },
  clients: Pick<LambdaClients, 'secrets'>,
): LinkKey {
  if (env.LINK_KEY_SECRET_ARN) return new SecretLinkKey(clients.secrets, env.LINK_KEY_SECRET_ARN);
  return {
    get: () =>
      Promise.reject(
        new HandoffError(
          'LINK_KEY_SECRET_ARN is not set for this Lambda function, so it cannot sign or check decision links',
        ),
      ),
  };
}
