/**
 * The chat API (`/api/*`, bearer key), one definition per route (api-route.ts):
 * `POST /api/chats` → `{"chat_id"}`, `POST /api/chats/:id/messages` with `{"message"}` → the
 * reply, `GET /api/chats/:id` with its turns, `GET /api/chats[?limit=N&cursor=C]` (a bare array,
 * most recently used first; where the next page starts in `X-Next-Cursor`). Locally a turn runs within the
 * request; where the host sends turns elsewhere (AWS: the agent function), it is accepted with
 * 202 (chat-api-routes.ts). The confirmation card's routes are in chat-card-api.ts. Loaded
 * with the first request to one of them (api-modules.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { pageOfChats } from '../chats/chat-list.ts';
import { createChat, getChat } from '../chats/chat-repository.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import { Paging } from './list-queries.ts';
import { acceptTurn, assistant, chatJson, type ChatTurnSender } from './chat-api-routes.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

export const chatId = pathParam('id', 'The chat id.');

const MESSAGE_SHAPE = '{"message": "archive newsletters every morning"}';
const MessageBody = z
  .object({
    message: z.unknown().meta({ description: 'What you say (a string, at most 8,000 characters).' }),
  })
  .meta({ id: 'ChatMessage' });
const NewChatBody = z.object({ title: z.string().optional() }).optional();

/** An unknown chat is 404 before the body is read. */
export const chatFound =
  (web: WebDeps): MiddlewareHandler =>
  async (c, next) => {
    await getChat(web.engine.store, c.req.param('id') ?? '');
    await next();
  };

export const listChatsRoute = defineRoute({
  method: 'get',
  path: '/api/chats',
  operationId: 'listChats',
  summary: 'The chats with the workspace assistant, most recently used first',
  query: z.object({
    ...Paging,
    cursor: Paging.cursor.meta({ description: "The previous page's `X-Next-Cursor`." }),
  }),
  responses: {
    200: {
      description: 'A page of the chats.',
      schema: 'ChatSummaries',
      headers: {
        'X-Next-Cursor': 'Where the next page starts (pass it as `cursor`); absent on the last page.',
      },
    },
    400: 'BadRequest',
    401: 'Unauthorized',
  },
});

export const createChatRoute = defineRoute({
  method: 'post',
  path: '/api/chats',
  operationId: 'createChat',
  summary: 'Start a chat with the workspace assistant',
  body: {
    schema: NewChatBody,
    shape: '{"title"?: string}',
    invalid: 'body: title must be a string (or send no body)',
    optional: true,
  },
  responses: {
    201: { description: 'Created.', schema: 'ChatCreated' },
    400: 'BadRequest',
    401: 'Unauthorized',
    413: 'TooLarge',
  },
});

export const getChatRoute = defineRoute({
  method: 'get',
  path: '/api/chats/{id}',
  operationId: 'getChat',
  summary: 'A chat with its turns',
  params: chatId,
  responses: { 200: { description: 'The chat.', schema: 'Chat' }, 401: 'Unauthorized', 404: 'NotFound' },
});

export const sendMessageRoute = defineRoute({
  method: 'post',
  path: '/api/chats/{id}/messages',
  operationId: 'sendChatMessage',
  summary: 'Send a message; the reply comes when the turn is done (it streams on chat:<id>)',
  params: chatId,
  body: { schema: MessageBody, shape: MESSAGE_SHAPE, invalid: `body must be JSON like ${MESSAGE_SHAPE}` },
  responses: {
    200: { description: 'The assistant’s reply.', schema: 'ChatReply' },
    202: { description: 'Accepted (on AWS): the reply lands in the chat’s turns.', schema: 'ChatAccepted' },
    400: 'BadRequest',
    401: 'Unauthorized',
    404: 'NotFound',
    413: 'TooLarge',
    422: 'Unprocessable',
  },
});

export const CHAT_ROUTES = [listChatsRoute, createChatRoute, getChatRoute, sendMessageRoute];

/** Registers the chat API's handlers; `sendTurn`: where turns run when not in the request. */
export function registerChatApi(app: RouteSink, web: WebDeps, sendTurn?: ChatTurnSender): void {
  serveRoute(app, listChatsRoute, async (c, { query: { limit, cursor } }) => {
    const page = await pageOfChats(web.engine.store, { limit, cursor });
    // The list stays a bare array (its contract); where the next page starts is a header.
    if (page.next_cursor !== null) c.header('X-Next-Cursor', page.next_cursor);
    return c.json(page.items);
  });

  serveRoute(app, createChatRoute, async (c, { body }) => {
    const chat = await createChat(web.engine.store, body?.title);
    return c.json({ chat_id: chat.id }, 201);
  });

  serveRoute(app, getChatRoute, async (c, { params }) =>
    c.json(await chatJson(web, await getChat(web.engine.store, params.id))),
  );

  serveRoute(
    app,
    sendMessageRoute,
    async (c, { params, body }) => {
      if (sendTurn) return c.json(await acceptTurn(web, params.id, body.message, sendTurn), 202);
      return c.json(await (await assistant()).sendMessage(web.engine, params.id, body.message));
    },
    chatFound(web),
  );
}
