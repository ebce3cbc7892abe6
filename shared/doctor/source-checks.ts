import type { Credentials } from '../credentials/credentials.ts';
import { checkSource, type SourceOpener } from '../sources/check.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { pausedFor } from '../schedules/schedules.ts';
import { broken, ok, type Check } from './check.ts';
import { plural } from '../text/plural.ts';

/**
 * One check per saved workflow: its source answers and how many items it holds (as
 * `handoff sources check` counts them, acting on nothing), or the one-line reason it does not;
 * a workflow saved paused until a credential is set says what it needs.
 * A store that cannot list workflows gives none here: the store check already says why.
 */
export async function sourceChecks(
  store: Store,
  open?: SourceOpener,
  credentials?: Credentials,
): Promise<Check[]> {
  const workflows = await listWorkflows(store).catch(() => []);
  return workflows.map((workflow) => ({
    name: `source (${workflow.id})`,
    async run() {
      const needs = await pausedFor(store, workflow.id);
      if (needs.length > 0) {
        const have = credentials ? await credentials.names() : new Set<string>();
        const missing = needs.filter((n) => !have.has(n));
        const resume = workflow.trigger.schedule
          ? `\`handoff schedules resume ${workflow.id}\``
          : `say "resume ${workflow.id}" in the chat`;
        return broken(
          missing.length > 0
            ? `paused: needs ${missing.join(', ')}, so it does not run; set it with \`handoff credentials set ${missing[0]}\` (or on the Credentials page) and it resumes by itself`
            : `paused until ${needs.join(', ')} was set, which it now is: ${resume}`,
        );
      }
      const check = await checkSource(workflow, {
        limit: 0,
        ...(open ? { open } : {}),
        ...(credentials ? { credentials } : {}),
      });
      if (!check.ok) return broken(`${workflow.source.type}: ${check.error}`);
      return ok(`${workflow.source.type}: ${check.note ?? `${plural(check.count, 'item')}`}`);
    },
  }));
}
