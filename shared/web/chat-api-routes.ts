/**
 * The chat API (`/api/*`, bearer key): `POST /api/chats` → `{"chat_id"}`,
 * `POST /api/chats/:id/messages` with `{"message"}` → the reply, `GET /api/chats/:id` with
 * its turns, `GET /api/chats`. Locally a turn runs within the request; where the host sends
 * turns elsewhere (AWS: the agent function), the message is checked, accepted with 202
 * `{"chat_id","turn_id"}`, and the reply lands in the chat's turns (tagged with that id).
 * The confirmation card's routes (`/confirm`, `/cancel`, `/draft`, `/credential`) are in
 * chat-card-api.ts, loaded with the first of them.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { createChat, getChat, listChats, readTurns } from '../chats/chat-repository.ts';
import type { Card, Chat, Turn, WorkflowCard } from '../chats/chat-records.ts';
import { lateQuestionCards } from '../assistant/late-questions.ts';
import { listPending } from '../runs/decision-repository.ts';
import type { WebDeps } from './web-deps.ts';
import { newId } from '../store/ids.ts';
import { lazyRoutes } from './lazy-routes.ts';

const MessageBody = z.object({ message: z.unknown() });
const NewChatBody = z.object({ title: z.string().optional() }).optional();

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
const assistant = () => import('../assistant/chat-service.ts');

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
  const [turns, pending] = await Promise.all([
    readTurns(web.engine.store, chat),
    listPending(web.engine.store),
  ]);
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

async function jsonBody(c: Context, shape: string): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HTTPException(400, { message: `body must be JSON like ${shape}` });
  }
}

/** Registers the chat API; `limit` is the app's 1 MB body limit. */
export function registerChatApiRoutes(
  app: Hono,
  web: WebDeps,
  limit: MiddlewareHandler,
  sendTurn?: ChatTurnSender,
): void {
  app.get('/api/chats', async (c) => c.json(await listChats(web.engine.store)));

  app.post('/api/chats', limit, async (c) => {
    const body = NewChatBody.safeParse(await jsonBody(c, '{"title"?: string}'));
    if (!body.success)
      throw new HTTPException(400, { message: 'body: title must be a string (or send no body)' });
    const chat = await createChat(web.engine.store, body.data?.title);
    return c.json({ chat_id: chat.id }, 201);
  });

  app.get('/api/chats/:id', async (c) =>
    c.json(await chatJson(web, await getChat(web.engine.store, c.req.param('id')))),
  );

  app.post('/api/chats/:id/messages', limit, async (c) => {
    const chatId = (await getChat(web.engine.store, c.req.param('id'))).id; // 404 before reading the body
    const body = MessageBody.safeParse(await jsonBody(c, '{"message": "archive newsletters every morning"}'));
    if (!body.success)
      throw new HTTPException(400, {
        message: 'body must be JSON like {"message": "archive newsletters every morning"}',
      });
    if (sendTurn) return c.json(await acceptTurn(web, chatId, body.data.message, sendTurn), 202);
    return c.json(await (await assistant()).sendMessage(web.engine, chatId, body.data.message));
  });
  lazyRoutes(app, CARD_ROUTES, async () => {
    const { registerCardHandlers } = await import('./chat-card-api.ts');
    return (sink) => registerCardHandlers(sink, web);
  });
}

/** The card's Yes, No, Edit and credential field over the API (chat-card-api.ts). */
const CARD_ROUTES = [
  'POST /api/chats/:id/confirm',
  'POST /api/chats/:id/cancel',
  'POST /api/chats/:id/draft',
  'POST /api/chats/:id/credential',
];
