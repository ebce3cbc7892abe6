/**
 * What the chat API (chat-api.ts) and the Chat page share: a chat as JSON, and accepting a
 * turn where the host sends turns elsewhere (AWS: the agent function): the message is
 * checked, accepted with 202 `{"chat_id","turn_id"}`, and the reply lands in the chat's turns
 * (tagged with that id).
 */
import { readTurns } from '../chats/chat-repository.ts';
import type { Card, Chat, Turn, WorkflowCard } from '../chats/chat-records.ts';
import { lateQuestionCards, waitingOfChat } from '../assistant/late-questions.ts';
import type { WebDeps } from './web-deps.ts';
import { newId } from '../store/ids.ts';

/** A turn accepted by the API, for the process that runs assistant turns. */
export interface ChatTurnWork {
  chat_id: string;
  turn_id: string;
  message: string;
  workspace: string;
}
/** Sends a turn to where assistant turns run (AWS: an event for the agent function). */
export type ChatTurnSender = (turn: ChatTurnWork) => Promise<void>;

/** The assistant, loaded with the first message (a Lambda serving only pages never loads it). */
export const assistant = () => import('../assistant/chat-service.ts');

/**
 * Accepts a turn for where turns run (AWS: the agent function): the message is checked here
 * (refused with one line, nothing sent), then sent under a new turn id. The page and the API
 * both send turns through this, so neither runs a model inside a request there.
 */
export async function acceptTurn(
  web: WebDeps,
  chatId: string,
  message: unknown,
  sendTurn: ChatTurnSender,
): Promise<{ chat_id: string; turn_id: string }> {
  const text = (await assistant()).checkMessage(message);
  const turnId = newId('turn');
  await sendTurn({ chat_id: chatId, turn_id: turnId, message: text, workspace: web.engine.workspace });
  return { chat_id: chatId, turn_id: turnId };
}

/** A chat as `GET /api/chats/:id` shows it. */
export interface ChatJson {
  chat_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  turns: Turn[];
  confirm: { id: string; tool: string; summary: string; card?: WorkflowCard } | null;
  /** Questions a run started here asked after its turn (on AWS, as the run went on): answer them here. */
  questions: Card[];
}

/** The chat with its transcript, as the API and the page read it. */
export async function chatJson(web: WebDeps, chat: Chat): Promise<ChatJson> {
  const turns = await readTurns(web.engine.store, chat);
  const pending = await waitingOfChat(web.engine.store, turns);
  return {
    chat_id: chat.id,
    title: chat.title,
    created_at: chat.created_at,
    updated_at: chat.updated_at,
    turns,
    questions: lateQuestionCards(turns, pending),
    confirm: chat.confirm
      ? {
          id: chat.confirm.id,
          tool: chat.confirm.tool,
          summary: chat.confirm.summary,
          ...(chat.confirm.card ? { card: chat.confirm.card } : {}),
        }
      : null,
  };
}
