/** The credentials a workflow needs before it can run (kept apart from the templates, which load YAML). */
import { BUILTIN_ENTRIES, requiredCredentials } from '../integrations/servers.ts';
import { serverOf } from '../integrations/tool.ts';
import type { Workflow } from './schema.ts';

/**
 * The credential names a workflow needs before it can run: its source's `credential` (a
 * mailbox password, say) and those of the built-in integrations its actions and
 * `integrations` name (see `handoff integrations`). An entry it does not know needs none here.
 */
export function credentialsNeeded(workflow: Workflow): string[] {
  const source = workflow.source;
  const own = 'credential' in source && typeof source.credential === 'string' ? [source.credential] : [];
  const entries = [
    ...workflow.actions.flatMap((a) => serverOf(a.name) ?? []),
    ...(workflow.integrations ?? []),
  ];
  const fromEntries = BUILTIN_ENTRIES.filter((e) => entries.includes(e.name)).flatMap(requiredCredentials);
  return [...new Set([...own, ...fromEntries])];
}
