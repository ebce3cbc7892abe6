/** The chat's draft workflow: checked as a workflow file would be, kept on the chat record. */
import { errorMessage } from '../errors/index.ts';
import { listEntries } from '../integrations/registry.ts';
import { serverOf } from '../integrations/tool.ts';
import { getChat } from '../chats/chat-repository.ts';
import { parseWorkflow } from '../workflows/load.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import type { ChatTurn } from './chat-turn.ts';

/** A config checked as a workflow file would be, plus: every `<entry>__<tool>` names a registry entry. */
export async function checkDraft(
  turn: ChatTurn,
  config: unknown,
): Promise<{ ok: true; workflow: Workflow } | { ok: false; error: string }> {
  let workflow: Workflow;
  try {
    if (config === null || typeof config !== 'object' || Array.isArray(config))
      return {
        ok: false,
        error:
          'config must be a workflow object (id, name, instructions, trigger, source, actions, human_gate)',
      };
    workflow = parseWorkflow(JSON.stringify(config), 'draft.json');
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
  const known = new Set((await listEntries(turn.engine.store)).map((r) => r.entry.name));
  const names = [
    ...workflow.actions.map((a) => a.name),
    ...(workflow.integrations ?? []).map((i) => `${i}__`),
  ];
  for (const name of names) {
    const server = serverOf(name) ?? (name.endsWith('__') ? name.slice(0, -2) : null);
    if (server !== null && !known.has(server))
      return {
        ok: false,
        error: `draft.json: "${name}" names no integration "${server}" in the registry (see list_integrations)`,
      };
  }
  return { ok: true, workflow };
}

/** The workflow drafted in this chat, if it still validates. */
export async function currentDraft(turn: ChatTurn): Promise<Workflow | null> {
  const draft = (await getChat(turn.engine.store, turn.chatId)).draft;
  const parsed = draft ? WorkflowSchema.safeParse(draft) : null;
  return parsed?.success ? parsed.data : null;
}
