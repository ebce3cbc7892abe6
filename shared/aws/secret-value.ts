import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { HandoffError } from '../errors/index.ts';
import { clientOf, type ClientRef } from './lazy-client.ts';

/**
 * One Secrets Manager secret's string, read on first use and kept for the life of the
 * container (the API key, the webhook secret). A failed read is not cached: the next
 * call tries again.
 */
export class SecretValue {
  private value: Promise<string> | undefined;

  constructor(
    private readonly client: ClientRef<SecretsManagerClient>,
    private readonly secretId: string,
  ) {}

  get(): Promise<string> {
    this.value ??= this.read().catch((error: unknown) => {
      this.value = undefined;
      throw error;
    });
    return this.value;
  }

  private async read(): Promise<string> {
    const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const out = await (
      await clientOf(this.client)
    ).send(new GetSecretValueCommand({ SecretId: this.secretId }));
    const text = out.SecretString ?? (out.SecretBinary ? Buffer.from(out.SecretBinary).toString('utf8') : '');
    if (!text.trim()) throw new HandoffError(`secret ${this.secretId} is empty`);
    return text.trim();
  }
}
