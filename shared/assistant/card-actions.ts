/**
 * What the confirmation card's buttons do besides Yes (chat-service.ts confirmStep): No drops
 * the step; Edit replaces the draft with the person's own version of it (checked as a workflow
 * file is) and asks again; the credential field sets a credential the draft needs (write-only:
 * the value is sealed in the credential store and never shown) and asks again, so the card
 * says it is set.
 */
import { getChat, updateChat } from '../chats/chat-repository.ts';
import type { Chat } from '../chats/chat-records.ts';
import { Secret } from '../credentials/secret.ts';
import { InvalidInputError, errorMessage } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { parseWorkflow } from '../workflows/load.ts';
import { credentialsNeeded } from '../workflows/credentials-needed.ts';
import { describeResumed, resumeWhenSet } from '../schedules/resume-when-set.ts';
import { finish, now, newLog, type ChatReply } from './chat-service.ts';
import { cardDeps, type ChatTurn } from './chat-turn.ts';
import { askFor } from './confirm-gate.ts';
import { checkDraft, currentDraft } from './draft.ts';
import { applyDraftEdits, DraftProblemsError, type DraftEdits } from './draft-fields.ts';
import type { Workflow } from '../workflows/schema.ts';
import { whatChanged, workflowCard } from './workflow-card.ts';

/** The card's No: the waiting step is dropped; a draft stays to be changed or saved later. */
export async function cancelStep(engine: EngineDeps, chatId: string, confirmId: string): Promise<ChatReply> {
  const chat = await waitingOn(engine, chatId, confirmId);
  await updateChat(engine.store, chat.id, () => ({ confirm: null }));
  const summary = chat.confirm!.summary;
  const kept =
    chat.confirm!.tool === 'save_workflow' ? ' The draft is kept: say what to change, or "save it".' : '';
  const text = `Cancelled: ${summary.charAt(0).toLowerCase()}${summary.slice(1)} was not done. Nothing changed.${kept}`;
  return finish(
    engine,
    chat.id,
    { role: 'user', text: `No: ${summary}`, at: now(), cards: [] },
    text,
    newLog(engine, chat.id),
  );
}

/** The card's Edit: the person's version of the draft (YAML or JSON) becomes the draft, and the save is asked again. */
export async function editDraft(engine: EngineDeps, chatId: string, text: string): Promise<ChatReply> {
  const turn = await draftTurn(engine, chatId);
  const edited = parseWorkflow(text, 'draft.yaml'); // one line naming the field, nothing changed
  const checked = await checkDraft(turn.turn, edited);
  if (!checked.ok) throw new InvalidInputError(checked.error);
  return replaceDraft(turn, checked.workflow, 'Edited the draft');
}

/**
 * The draft changed field by field (`handoff chat`'s `edit`, `POST /api/chats/:id/draft`):
 * every problem (`problems` found while reading the lines, and those of the values) is listed
 * at once (DraftProblemsError) and nothing changes; else the changed draft is shown back on a
 * new card, waiting for the yes.
 */
export async function editDraftFields(
  engine: EngineDeps,
  chatId: string,
  edits: DraftEdits,
  problems: readonly string[] = [],
): Promise<ChatReply> {
  const turn = await draftTurn(engine, chatId);
  const edited = applyDraftEdits(turn.before, edits, problems);
  const checked = await checkDraft(turn.turn, edited);
  if (!checked.ok) throw new DraftProblemsError([checked.error]);
  const said = (Object.entries(edits) as [string, string][])
    .map(([field, value]) => `${field}: ${value.replace(/\s*\n\s*/g, ' ')}`)
    .join('; ');
  return replaceDraft(turn, checked.workflow, `Edit ${said}`);
}

interface DraftTurn {
  turn: ChatTurn;
  before: Workflow;
}

async function draftTurn(engine: EngineDeps, chatId: string): Promise<DraftTurn> {
  const chat = await getChat(engine.store, chatId);
  const turn: ChatTurn = { engine, chatId: chat.id, log: newLog(engine, chat.id) };
  const before = await currentDraft(turn);
  if (!before) throw new InvalidInputError('this chat has no draft to edit: describe a workflow first');
  return { turn, before };
}

/** The checked workflow becomes the chat's draft; the reply says what changed and asks to save again. */
async function replaceDraft(
  { turn, before }: DraftTurn,
  workflow: Workflow,
  personSaid: string,
): Promise<ChatReply> {
  const { engine, chatId, log } = turn;
  await updateChat(engine.store, chatId, () => ({ draft: { ...workflow } }));
  const changed = whatChanged(
    await workflowCard(cardDeps(turn), before),
    await workflowCard(cardDeps(turn), workflow),
  );
  const asked = await askFor(turn, 'save_workflow', {});
  const reply =
    'refused' in asked
      ? `I could not ask to save it: ${asked.refused}`
      : `${changed.length > 0 ? `Changed ${changed.join('; ')}.` : 'Nothing changed.'} Save it? Say yes, no, or what to change.`;
  return finish(engine, chatId, { role: 'user', text: personSaid, at: now(), cards: [] }, reply, log);
}

/**
 * The card's credential field: sets one credential the draft needs (never echoed, never in the
 * transcript), then asks to save again so the card shows it set.
 */
export async function setDraftCredential(
  engine: EngineDeps,
  chatId: string,
  name: string,
  value: string,
): Promise<ChatReply> {
  const chat = await getChat(engine.store, chatId);
  const log = newLog(engine, chat.id);
  const turn: ChatTurn = { engine, chatId: chat.id, log };
  const draft = await currentDraft(turn);
  if (!draft || !credentialsNeeded(draft).includes(name))
    throw new InvalidInputError(`this chat's draft does not need a credential named "${name}"`);
  if (value.trim() === '')
    throw new InvalidInputError(`the value of ${name} is empty: paste it and send again`);
  try {
    await engine.credentials.set(name, new Secret(value.trim()));
  } catch (error) {
    throw new InvalidInputError(`${name} could not be set: ${errorMessage(error)}`);
  }
  // Saved workflows paused only until it was set run again, and the reply says which.
  const resumed = describeResumed(await resumeWhenSet(engine));
  const asked = await askFor(turn, 'save_workflow', {});
  const reply =
    'refused' in asked
      ? `${name} is set.${resumed ? ` ${resumed}` : ''} I could not ask to save the draft: ${asked.refused}`
      : `${name} is set (stored encrypted; it is never shown again).${resumed ? ` ${resumed}` : ''} ${asked.card?.saves_as === 'active' ? 'The workflow can run: save it?' : 'Save it?'} Say yes.`;
  return finish(
    engine,
    chat.id,
    { role: 'user', text: `Set credential ${name}`, at: now(), cards: [] },
    reply,
    log,
  );
}

async function waitingOn(engine: EngineDeps, chatId: string, confirmId: string): Promise<Chat> {
  const chat = await getChat(engine.store, chatId);
  if (!chat.confirm || chat.confirm.id !== confirmId)
    throw new InvalidInputError(
      'that confirmation is no longer waiting (it was done, cancelled or replaced); nothing changed',
    );
  return chat;
}
