import type { Credentials } from '../credentials/credentials.ts';
import type { Run } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { EventSource } from './event/event-source.ts';
import { ImapSource } from './imap/imap-source.ts';
import { MaildirSource } from './maildir/maildir-source.ts';
import type { ItemSource } from './source.ts';

/** What a source may need to open: the run it serves, the credentials of a remote source, and the store for IMAP's watermark. */
export interface SourceDeps {
  /** An event source reads the items its run stored; IMAP notes its watermark against the run. */
  run: Pick<Run, 'id' | 'trigger'>;
  credentials?: Credentials;
  store?: Store;
}

/** The source adapter a workflow names. A remote source connects on first use: `close` it. */
export function openSource(workflow: Workflow, deps: SourceDeps): ItemSource {
  switch (workflow.source.type) {
    case 'maildir':
      return new MaildirSource(workflow.source.path);
    case 'event':
      return new EventSource(deps.run.trigger.detail);
    case 'imap':
      if (!deps.credentials) throw new Error('an IMAP source needs the credential store to open');
      // Without a store (a check outside any run) no watermark is read or written.
      return new ImapSource(
        workflow.source,
        deps.credentials,
        deps.store ? { store: deps.store, workflowId: workflow.id, runId: deps.run.id } : null,
      );
  }
}
