import type { Workflow } from '../workflows/schema.ts';
import { MaildirSource } from './maildir/maildir-source.ts';
import type { ItemSource } from './source.ts';

/** The source adapter a workflow names. */
export function openSource(workflow: Workflow): ItemSource {
  switch (workflow.source.type) {
    case 'maildir':
      return new MaildirSource(workflow.source.path);
  }
}
