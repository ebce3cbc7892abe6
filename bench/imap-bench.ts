/**
 * The IMAP side of the engine bench: a local Dovecot holding the generated messages (written
 * into its Maildir before it starts, then indexed once as a live mailbox would be), reached
 * through a proxy that counts the commands each run sends.
 */
import type { Credentials } from '../shared/credentials/credentials.ts';
import { Secret } from '../shared/credentials/secret.ts';
import { writeMaildir, type MessageSpec } from '../shared/sources/maildir/generate.ts';
import type { ImapSourceConfig } from '../shared/workflows/schema.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, startDovecot } from '../test/support/dovecot.ts';
import { startImapCounter, type ImapCounter } from './imap-counter.ts';

const CREDENTIAL = 'BENCH_IMAP_PASSWORD';

/** A seeded Dovecot behind a counting proxy. */
export interface ImapBench {
  /** The workflow `source:` reading the INBOX through the proxy. */
  source: ImapSourceConfig;
  counter: ImapCounter;
  /** Stores the Dovecot password under the credential the source names. */
  storeCredential(credentials: Credentials): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Dovecot with `messages` in its INBOX and a counting proxy in front of it. */
export async function startImapSource(messages: readonly MessageSpec[]): Promise<ImapBench> {
  const dovecot = await startDovecot({ seedInbox: async (dir) => void (await writeMaildir(dir, messages)) });
  try {
    const warm = await dovecot.connect(); // index the new mail now, not inside the measured run
    await warm.mailboxOpen('INBOX');
    await warm.logout();
    const counter = await startImapCounter(dovecot);
    return {
      source: {
        type: 'imap',
        host: counter.host,
        port: counter.port,
        tls: false,
        user: DOVECOT_USER,
        credential: CREDENTIAL,
        mailbox: 'INBOX',
        auth: 'password',
      },
      counter,
      async storeCredential(credentials) {
        await credentials.set(CREDENTIAL, new Secret(DOVECOT_PASSWORD));
      },
      async stop() {
        await counter.stop();
        await dovecot.stop();
      },
    };
  } catch (error) {
    await dovecot.stop();
    throw error;
  }
}
