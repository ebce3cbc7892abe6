import type { Credentials } from '../credentials/credentials.ts';
import type { Run } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { EventSource } from './event/event-source.ts';
import { IMAP_BATCH } from './imap/batch.ts';
import { LazySource } from './lazy-source.ts';
import type { ItemSource } from './source.ts';
import { MAILDIR_REF_ACTIONS } from './maildir/ref-actions.ts';

/** What a source may need to open: the run it serves, the credentials of a remote source, and the store for IMAP's watermark. */
export interface SourceDeps {
  /** An event source reads the items its run stored; IMAP notes its watermark against the run. */
  run: Pick<Run, 'id' | 'trigger'>;
  credentials?: Credentials;
  store?: Store;
}

/**
 * The source adapter a workflow names. A remote source connects on first use: `close` it.
 * The mail adapters (and the parser and IMAP client they carry) load on first use too.
 */
export function openSource(workflow: Workflow, deps: SourceDeps): ItemSource {
  switch (workflow.source.type) {
    case 'maildir': {
      const { path } = workflow.source;
      return new LazySource(
        async () => new (await import('./maildir/maildir-source.ts')).MaildirSource(path),
        undefined,
        MAILDIR_REF_ACTIONS,
      );
    }
    case 'event':
      return new EventSource(deps.run.trigger.detail);
    case 'imap': {
      const { credentials, store } = deps;
      if (!credentials) throw new Error('an IMAP source needs the credential store to open');
      const config = workflow.source;
      // Without a store (a check outside any run) no watermark is read or written.
      const watermark = store ? { store, workflowId: workflow.id, runId: deps.run.id } : null;
      return new LazySource(
        async () => new (await import('./imap/imap-source.ts')).ImapSource(config, credentials, watermark),
        IMAP_BATCH,
      );
    }
  }
}
