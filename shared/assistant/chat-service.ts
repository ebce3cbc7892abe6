/**
 * One turn of a chat: the person's message in, the assistant's reply out, streamed onto
 * `chat:<id>` and kept in the store. A waiting confirmation is settled first: a yes carries
 * the step out (in code, never by the model), a no drops it, anything else supersedes it.
 */
import { Message, TextBlock } from '@strands-agents/sdk';
import { AlreadyDecidedError, InvalidInputError, NotFoundError, errorMessage } from '../errors/index.ts';
import { appendTurns, createChat, getChat, updateChat } from '../chats/chat-repository.ts';
import {
  MAX_MESSAGE_CHARS,
  type Chat,
  type Confirm,
  type Turn,
  type WorkflowCard,
} from '../chats/chat-records.ts';
import { currentDraft } from './draft.ts';
import { runWithHandoffs } from '../handoffs/index.ts';
import { logLine } from '../logging/log.ts';
import { recordAnswer } from '../runs/decide.ts';
import { getDecision } from '../runs/decision-repository.ts';
import { editsFromFields } from '../runs/edited-words.ts';
import { learnedFrom } from '../runs/learned.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { getRun } from '../runs/run-repository.ts';
import { describeOutcome } from '../runs/counts.ts';
import { buildAssistant } from './assistant.ts';
import type { ChatTurn } from './chat-turn.ts';
import { carryOut } from './steps.ts';
import { TurnLog, chatChannel } from './turn-log.ts';

/** What `handoff chat --json` prints and `POST /api/chats/:id/messages` answers. */
export interface ChatReply {
  chat_id: string;
  /** The id the API accepted the message under, when it was sent off the request path. */
  turn_id?: string;
  text: string;
  workflow_id?: string;
  run_id?: string;
  /** The world-changing step waiting for the person's yes (a save shows the whole workflow in `card`). */
  confirm?: { id: string; tool: string; summary: string; card?: WorkflowCard };
}

const YES = /^\s*(yes|yep|yeah|y|ok|okay|sure|confirm(ed)?|go ahead|do it|please do|yes,? please)\b[\s.!]*$/i;
const YES_FOR: Record<string, RegExp> = {
  save_workflow: /^\s*(yes,?\s*)?(save|save it|save it now|keep it)\b[\s.!]*$/i,
  start_run: /^\s*(yes,?\s*)?(run it|run it now|start it|start it now)\b[\s.!]*$/i,
};
/** A whole-line no ("no", "cancel", "no thanks"); "no, make it 9am" is a change, not a no. */
const NO = /^\s*(no|nope|cancel|stop|don'?t|never mind)(,?\s*thanks?( you)?)?[\s.!]*$/i;
/** "edit" alone: how to change the draft; "edit: make it 9am": the change itself. */
const EDIT = /^\s*edit\b[\s:,-]*/i;
const HOW_TO_EDIT =
  'Say what to change and I will change only that part, e.g. "make it 9am instead of 8", "only the Fastmail inbox", "also ask about invoices" (on the web, Edit also lets you change the workflow itself).';

/** Checks a message before anything is stored: one line saying what was wrong. */
export function checkMessage(message: unknown): string {
  if (typeof message !== 'string')
    throw new InvalidInputError('message must be a string, e.g. {"message": "archive newsletters"}');
  const text = message.trim();
  if (text === '')
    throw new InvalidInputError(
      'the message is empty: say what you want, e.g. "archive newsletters every morning"',
    );
  if (text.length > MAX_MESSAGE_CHARS)
    throw new InvalidInputError(
      `the message is ${text.length} characters; the most is ${MAX_MESSAGE_CHARS}: shorten it`,
    );
  return text;
}

/**
 * Sends one message to a chat (a new one when `chatId` is undefined) and returns the reply.
 * `turnId`: the id the API accepted the message under (off the request path), kept on both turns.
 */
export async function sendMessage(
  engine: EngineDeps,
  chatId: string | undefined,
  message: unknown,
  turnId?: string,
): Promise<ChatReply> {
  const text = checkMessage(message);
  const chat = chatId === undefined ? await createChat(engine.store) : await getChat(engine.store, chatId);
  const log = newLog(engine, chat.id);
  const person: Turn = { role: 'user', text, at: now(), cards: [], ...(turnId ? { turn_id: turnId } : {}) };
  let reply: string;
  if (chat.confirm && (YES.test(text) || YES_FOR[chat.confirm.tool]?.test(text) === true)) {
    reply = await settle(engine, chat, chat.confirm, log);
  } else if (chat.confirm && NO.test(text)) {
    await updateChat(engine.store, chat.id, () => ({ confirm: null }));
    reply = `Cancelled: ${lower(chat.confirm.summary)} was not done. Nothing changed.${chat.confirm.tool === 'save_workflow' ? ' The draft is kept: say what to change, or "save it".' : ''}`;
  } else if (chat.confirm?.tool === 'save_workflow' && EDIT.test(text) && text.replace(EDIT, '') === '') {
    reply = HOW_TO_EDIT;
  } else {
    const request = chat.confirm?.tool === 'save_workflow' ? text.replace(EDIT, '') : text;
    reply = await agentTurnOrWhyNot(engine, chat.id, request, log);
    await settleSuperseded(engine, chat.id, chat.confirm, log);
  }
  return finish(engine, chat.id, person, reply, log, turnId);
}

/**
 * After a turn: a step it asked for replaced the one waiting. Otherwise a waiting save of the
 * draft stays (a question in between does not lose it), and any other waiting step is dropped:
 * a delete or a run is confirmed right after it is asked, or not at all.
 */
async function settleSuperseded(
  engine: EngineDeps,
  chatId: string,
  before: Confirm | null,
  log: TurnLog,
): Promise<void> {
  if (!before || log.confirm) return;
  const now = await getChat(engine.store, chatId);
  if (now.confirm?.id !== before.id) return;
  if (before.tool === 'save_workflow' && now.draft !== null) {
    log.pending = now.confirm;
    return;
  }
  await updateChat(engine.store, chatId, (c) => (c.confirm?.id === before.id ? { confirm: null } : {}));
}

/** The card's button: carries out the waiting step if `confirmId` is still the one waiting. */
export async function confirmStep(engine: EngineDeps, chatId: string, confirmId: string): Promise<ChatReply> {
  const chat = await getChat(engine.store, chatId);
  if (!chat.confirm || chat.confirm.id !== confirmId)
    throw new InvalidInputError(
      'that confirmation is no longer waiting (it was done, cancelled or replaced); nothing changed',
    );
  const log = newLog(engine, chat.id);
  const reply = await settle(engine, chat, chat.confirm, log);
  return finish(
    engine,
    chat.id,
    { role: 'user', text: `Yes: ${chat.confirm.summary}`, at: now(), cards: [] },
    reply,
    log,
  );
}

/**
 * A decision card's button: the person's own answer, through the one way to answer (decide).
 * `words` are the card's text boxes (`body:<action>`, `title:<action>`): the chosen action's,
 * as the person left them, are what is saved.
 */
export async function answerInChat(
  engine: EngineDeps,
  chatId: string,
  decisionId: string,
  action: string,
  note: string | null,
  words: Record<string, string | undefined> = {},
): Promise<ChatReply> {
  await getChat(engine.store, chatId);
  const log = newLog(engine, chatId);
  const decision = await getDecision(engine.store, decisionId);
  const edits = editsFromFields(words, decision, action);
  const result = await recordAnswer(engine, decisionId, action, note, undefined, [], { edits });
  const edited = edits.body !== undefined || edits.title !== undefined;
  const learned = learnedFrom(result.answered, result.learned).words; // what the answer taught, in words
  log.runId = result.run_id;
  let reply = `Recorded: ${action} for this item. ${learned}. Run ${result.run_id} is ${result.run_status}.`;
  if (result.run_status !== 'waiting') {
    const run = await getRun(engine.store, result.run_id);
    const summary = `Run ${run.id}: ${run.status} — ${describeOutcome(run)}`;
    log.card({ kind: 'run', run_id: run.id, status: run.status, text: summary });
    reply = `Recorded: ${action}. ${learned}. ${summary}.`;
  }
  const person: Turn = {
    role: 'user',
    text: `Answer ${decisionId}: ${action}${edited ? ', with my words' : ''}${note ? ` (${note})` : ''}`,
    at: now(),
    cards: [],
  };
  return finish(engine, chatId, person, reply, log);
}

async function settle(engine: EngineDeps, chat: Chat, confirm: Confirm, log: TurnLog): Promise<string> {
  await updateChat(engine.store, chat.id, () => ({ confirm: null }));
  try {
    const done = await carryOut(engine, confirm, log);
    // Saved: the draft is done with. A save that failed keeps it, to be changed and asked again.
    if (confirm.tool === 'save_workflow') await updateChat(engine.store, chat.id, () => ({ draft: null }));
    return done;
  } catch (error) {
    if (
      error instanceof InvalidInputError ||
      error instanceof NotFoundError ||
      error instanceof AlreadyDecidedError
    )
      return `That could not be done: ${errorMessage(error)}`;
    throw error;
  }
}

/** A turn that fails (the model cannot be reached, say) is told in the chat, in one line; nothing was carried out. */
async function agentTurnOrWhyNot(
  engine: EngineDeps,
  chatId: string,
  text: string,
  log: TurnLog,
): Promise<string> {
  try {
    return await agentTurn(engine, chatId, text, log);
  } catch (error) {
    logLine(`handoff: chat ${chatId}: the assistant's turn failed: ${oneLine(errorMessage(error))}`);
    return `I could not finish that: ${oneLine(errorMessage(error))}. Nothing was changed; try again.`;
  }
}

async function agentTurn(engine: EngineDeps, chatId: string, text: string, log: TurnLog): Promise<string> {
  const turn: ChatTurn = { engine, chatId, log };
  const draft = await currentDraft(turn);
  const [triage, builder, operator] = [
    await engine.models('primary'),
    await engine.models('primary'),
    await engine.models('primary'),
  ];
  const agents = buildAssistant(turn, { triage, builder, operator }, draft);
  const result = await runWithHandoffs(agents.triage, text, { maxHandoffs: 1 });
  const output = result.output.trim() || 'Done.';
  if (result.lastAgent !== agents.triage) {
    // The chat's history holds what the person was told, whichever agent told them.
    agents.triage.messages.push(new Message({ role: 'assistant', content: [new TextBlock(output)] }));
    await agents.session.saveSnapshot({ target: agents.triage, isLatest: true });
  }
  return output;
}

/** Records the turn (the person's line and the reply with its cards) and tells the feed it is done. */
export async function finish(
  engine: EngineDeps,
  chatId: string,
  person: Turn,
  text: string,
  log: TurnLog,
  turnId?: string,
): Promise<ChatReply> {
  const tag = turnId ? { turn_id: turnId } : {};
  await appendTurns(engine.store, chatId, [
    person,
    { role: 'assistant', text, at: now(), cards: log.cards, ...tag },
  ]);
  const reply: ChatReply = {
    chat_id: chatId,
    ...tag,
    text,
    ...(log.workflowId ? { workflow_id: log.workflowId } : {}),
    ...(log.runId ? { run_id: log.runId } : {}),
    // A step asked this turn comes with its card; one still waiting from before, as a reminder.
    ...(log.confirm
      ? { confirm: confirmJson(log.confirm, true) }
      : log.pending
        ? { confirm: confirmJson(log.pending, false) }
        : {}),
  };
  log.emit('done', text, { ...reply });
  return reply;
}

function confirmJson(c: Confirm, withCard: boolean): NonNullable<ChatReply['confirm']> {
  return { id: c.id, tool: c.tool, summary: c.summary, ...(withCard && c.card ? { card: c.card } : {}) };
}

/** A turn's log, emitting onto the chat's feed. */
export function newLog(engine: EngineDeps, chatId: string): TurnLog {
  return new TurnLog((kind, text, data = {}) => engine.emit(chatChannel(chatId), kind, text, data));
}

export function now(): string {
  return new Date().toISOString();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function lower(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
