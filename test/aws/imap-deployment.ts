/**
 * An IMAP mailbox for the in-process AWS tests: a real Dovecot holding the demo inbox, its
 * password sealed with KMS in the deployment's store as `handoff credentials set` seals it
 * there (KMS mocked at the command level), and the demo workflow reading it.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import type { Credentials } from '../../shared/credentials/credentials.ts';
import { kmsOnlyCredentials } from '../../shared/credentials/open-credentials.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { DEMO_MESSAGES, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../shared/sources/maildir/generate.ts';
import type { Store } from '../../shared/store/store.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, startDovecot, type Dovecot } from '../support/dovecot.ts';
import { ACCOUNT, REGION } from './support.ts';

export const KMS_KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
export const MAIL_CREDENTIAL = 'MAIL_PASSWORD';

/** The deployment's credential store: sealed with KMS (HANDOFF_KMS_KEY_ID must be set), as the Lambdas open it. */
export function deployedCredentials(store: Store): Credentials {
  return kmsOnlyCredentials(REGION, store);
}

/**
 * KMS for HANDOFF_KMS_KEY_ID: Encrypt wraps the plaintext with its encryption context, and
 * Decrypt gives it back only under the same context and key, as KMS does.
 */
export function mockKms(): void {
  const kms = mockClient(KMSClient);
  kms.on(EncryptCommand).callsFake((input: EncryptCommand['input']) => ({
    KeyId: input.KeyId,
    CiphertextBlob: Buffer.from(
      JSON.stringify({
        key: input.KeyId,
        context: input.EncryptionContext,
        plaintext: Buffer.from(input.Plaintext!).toString('base64'),
      }),
    ),
  }));
  kms.on(DecryptCommand).callsFake((input: DecryptCommand['input']) => {
    const sealed = JSON.parse(Buffer.from(input.CiphertextBlob!).toString('utf8')) as {
      key: string;
      context: Record<string, string>;
      plaintext: string;
    };
    if (
      sealed.key !== input.KeyId ||
      JSON.stringify(sealed.context) !== JSON.stringify(input.EncryptionContext)
    )
      throw Object.assign(new Error('context mismatch'), { name: 'InvalidCiphertextException' });
    return { KeyId: sealed.key, Plaintext: Buffer.from(sealed.plaintext, 'base64') };
  });
}

/**
 * Starts a Dovecot holding the demo inbox and stores its password as MAIL_PASSWORD in
 * `credentials` (on a deployment: `deployedCredentials`). Returns the server and the demo
 * workflow's YAML reading its INBOX.
 */
export async function demoInboxOnImap(credentials: Credentials): Promise<{ dovecot: Dovecot; yaml: string }> {
  const dovecot = await startDovecot();
  await dovecot.append(DEMO_MESSAGES.map((m) => renderMessage(m)));
  await credentials.set(MAIL_CREDENTIAL, new Secret(DOVECOT_PASSWORD));
  const yaml = demoWorkflowYaml('/unused').replace(
    /^source: .*$/m,
    `source: { type: imap, host: 127.0.0.1, port: ${dovecot.port}, tls: false, user: ${DOVECOT_USER}, credential: ${MAIL_CREDENTIAL} }`,
  );
  return { dovecot, yaml };
}
