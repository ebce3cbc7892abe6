import type { Credentials } from '../credentials/credentials.ts';
import { checkSource, type SourceOpener } from '../sources/check.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { broken, ok, type Check } from './check.ts';

/**
 * One check per saved workflow: its source answers and how many items it holds (as
 * `handoff sources check` counts them, acting on nothing), or the one-line reason it does not.
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
      const check = await checkSource(workflow, {
        limit: 0,
        ...(open ? { open } : {}),
        ...(credentials ? { credentials } : {}),
      });
      if (!check.ok) return broken(`${workflow.source.type}: ${check.error}`);
      return ok(`${workflow.source.type}: ${check.note ?? `${check.count} item(s)`}`);
    },
  }));
}
