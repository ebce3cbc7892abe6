/** An IMAP workflow source on the test Dovecot, with its credential stored as a user stores it. */
import { join } from 'node:path';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import type { Store } from '../../shared/store/store.ts';
import type { ImapSourceConfig } from '../../shared/workflows/schema.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, type Dovecot } from './dovecot.ts';

export const IMAP_CREDENTIAL = 'TEST_IMAP_PASSWORD';

/** The `source:` of a workflow reading the Dovecot's INBOX. */
export function imapConfig(
  dovecot: { host: string; port: number },
  over: Partial<ImapSourceConfig> = {},
): ImapSourceConfig {
  return {
    type: 'imap',
    host: dovecot.host,
    port: dovecot.port,
    tls: false,
    user: DOVECOT_USER,
    credential: IMAP_CREDENTIAL,
    mailbox: 'INBOX',
    auth: 'password',
    ...over,
  };
}

/** Credentials in `stateDir` holding the Dovecot password (or `password`). */
export async function imapCredentials(
  store: Store,
  stateDir: string,
  password = DOVECOT_PASSWORD,
): Promise<Credentials> {
  const credentials = new Credentials(store, LocalCipher.inStateDir(join(stateDir)));
  await credentials.set(IMAP_CREDENTIAL, new Secret(password));
  return credentials;
}

/** The Message-IDs of the messages in a mailbox. */
export async function messageIds(dovecot: Dovecot, mailbox: string): Promise<string[]> {
  return (await dovecot.messages(mailbox)).map((raw) => /^Message-ID:\s*(\S+)/im.exec(raw)?.[1] ?? '');
}
