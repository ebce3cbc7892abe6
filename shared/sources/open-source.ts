import type { Credentials } from '../credentials/credentials.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { ImapSource } from './imap/imap-source.ts';
import { MaildirSource } from './maildir/maildir-source.ts';
import type { ItemSource } from './source.ts';

/** What a remote source needs to open: the run's credentials and store, and the run. */
export interface SourceDeps {
  credentials: Credentials;
  store: Store;
  runId: string;
}

/** The source adapter a workflow names. A remote source connects on first use: `close` it. */
export function openSource(workflow: Workflow, deps?: SourceDeps): ItemSource {
  switch (workflow.source.type) {
    case 'maildir':
      return new MaildirSource(workflow.source.path);
    case 'imap':
      if (!deps) throw new Error("an IMAP source needs the run's credentials and store");
      return new ImapSource(workflow.source, deps.credentials, {
        store: deps.store,
        workflowId: workflow.id,
        runId: deps.runId,
      });
  }
}
