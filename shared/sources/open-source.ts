import type { Run } from '../records/runs.ts';
import type { Workflow } from '../workflows/schema.ts';
import { EventSource } from './event/event-source.ts';
import { MaildirSource } from './maildir/maildir-source.ts';
import type { ItemSource } from './source.ts';

/** The source adapter a workflow names; an event source reads the items its run stored. */
export function openSource(workflow: Workflow, run: Pick<Run, 'trigger'>): ItemSource {
  switch (workflow.source.type) {
    case 'maildir':
      return new MaildirSource(workflow.source.path);
    case 'event':
      return new EventSource(run.trigger.detail);
  }
}
