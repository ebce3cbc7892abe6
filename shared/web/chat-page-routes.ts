/**
 * The Chat page: `GET /chat` and `/chat/:id`, and its forms (send; a waiting step's Yes,
 * No, Edit and credential field; answer a decision; rename, delete), each a POST that redirects back (no JavaScript needed);
 * `GET /chat/:id/events` streams the chat's feed for chat.js.
 */
import type { Context } from 'hono';
import { chatChannel } from '../assistant/turn-log.ts';
import { createChat, deleteChat, getChat, readTurns, renameChat } from '../chats/chat-repository.ts';
import { AlreadyDecidedError, InvalidInputError, NotFoundError, errorMessage } from '../errors/index.ts';
import { feed, workspaceChannel } from '../events/feed.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { admit, admitForm } from './guard.ts';
import { chatPage } from './pages/chat.ts';
import { messagePage } from './pages/layout.ts';
import { streamRunWhereLive } from './sse.ts';
import type { WebDeps } from './web-deps.ts';
import type { RouteSink } from './lazy-routes.ts';
import { lateQuestionCards, waitingOfChat } from '../assistant/late-questions.ts';
import { acceptTurn, type ChatTurnSender } from './chat-api-routes.ts';

/** The assistant, loaded with the first message (a Lambda serving only pages never loads it). */
const assistant = () => import('../assistant/chat-service.ts');
/** The confirmation card's No, Edit and credential field. */
const cardActions = () => import('../assistant/card-actions.ts');

/** The chat list's paging (by key: chats/chat-list.ts), loaded with the first page request. */
const chatList = () => import('../chats/chat-list.ts');
/** Chats the list shows at a time (the next page by its cursor). */
const CHATS_PER_PAGE = 50;

/** Shown after a message was sent to where turns run (the reply is not in yet). */
const SENT = 'Sent. The assistant is answering; its reply appears here (reload the page).';

/**
 * Registers the Chat page and its forms. With `sendTurn` (AWS) a message is checked and sent
 * to where turns run, as the API does (acceptTurn): no model turn runs inside the request.
 */
export function registerChatPageRoutes(app: RouteSink, web: WebDeps, sendTurn?: ChatTurnSender): void {
  const show = async (c: Context, chatId: string | null, error: string | null = null) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const after =
      chatId === null
        ? 0
        : (feed.history(workspaceChannel(web.engine.workspace, chatChannel(chatId))).at(-1)?.seq ?? 0);
    const chat = chatId === null ? null : await getChat(web.engine.store, chatId).catch(() => null);
    if (chatId !== null && !chat)
      return c.html(
        messagePage('Not found', `There is no chat "${chatId}".`, { href: '/chat', text: 'Back to Chat' }),
        404,
      );
    const cursor = c.req.query('cursor') || undefined;
    const [chats, count, turns] = await Promise.all([
      chatList().then((list) => list.pageOfChats(web.engine.store, { limit: CHATS_PER_PAGE, cursor })),
      waitingCount(web.engine.store),
      chat ? readTurns(web.engine.store, chat) : [],
    ]);
    const pending = chat ? await waitingOfChat(web.engine.store, turns) : [];
    const open = chat
      ? {
          chat_id: chat.id,
          title: chat.title,
          turns,
          confirm: chat.confirm
            ? {
                id: chat.confirm.id,
                summary: chat.confirm.summary,
                card: chat.confirm.card,
                // YAML is loaded with a draft to edit: a cold start serving other pages never loads it.
                draft_yaml:
                  chat.confirm.tool === 'save_workflow' && chat.draft
                    ? (await import('yaml')).stringify(chat.draft)
                    : null,
              }
            : null,
          waiting: new Map(pending.map((d) => [d.id, d])),
          late: lateQuestionCards(turns, pending),
        }
      : null;
    const notice = c.req.query('sent') !== undefined && !error ? SENT : null;
    const data = {
      chats: chats.items,
      older: chats.next_cursor,
      isFirstPage: cursor === undefined,
      open,
      pending: count,
      live: web.liveFeed,
      after,
      error,
      notice,
    };
    return c.html(chatPage(admitted.visitor, data), error ? 422 : 200);
  };

  app.get('/chat', (c) => show(c, null));
  app.get('/chat/:id', (c) => show(c, c.req.param('id') ?? null));

  // Each form: admitted with its CSRF token, then back to the chat (or the page with the one-line error).
  const form = (
    path: string,
    act: (c: Context, f: Record<string, string>, chatId: string | null) => Promise<string | null>,
  ) =>
    app.post(path, async (c) => {
      const admitted = await admitForm(c, web);
      if (!admitted.ok) return admitted.response;
      const chatId = c.req.param('id') ?? null;
      try {
        const next = await act(c, admitted.form, chatId);
        return c.redirect(next ?? '/chat', 303);
      } catch (error) {
        if (
          error instanceof NotFoundError &&
          chatId !== null &&
          !(await web.engine.store.get('chats', chatId))
        )
          return show(c, chatId);
        if (
          error instanceof InvalidInputError ||
          error instanceof NotFoundError ||
          error instanceof AlreadyDecidedError
        )
          return show(c, chatId, errorMessage(error));
        throw error;
      }
    });
  const page = (chatId: string) => `/chat/${encodeURIComponent(chatId)}`;

  // An empty chat first, so the page streams even its first turn.
  form('/chat/new', async () => page((await createChat(web.engine.store)).id));
  /** A message from the page: answered in this request, or sent to where turns run. */
  const send = async (chatId: string | undefined, message: string): Promise<string> => {
    if (!sendTurn) return page((await (await assistant()).sendMessage(web.engine, chatId, message)).chat_id);
    (await assistant()).checkMessage(message); // refused before a chat is made
    const chat =
      chatId === undefined ? await createChat(web.engine.store) : await getChat(web.engine.store, chatId);
    await acceptTurn(web, chat.id, message, sendTurn);
    return `${page(chat.id)}?sent=1`;
  };
  form('/chat', async (_c, f) => send(undefined, f.message ?? ''));
  form('/chat/:id', async (_c, f, id) => send(id!, f.message ?? ''));
  form('/chat/:id/confirm', async (_c, f, id) =>
    page((await (await assistant()).confirmStep(web.engine, id!, f.confirm_id ?? '')).chat_id),
  );
  form('/chat/:id/cancel', async (_c, f, id) =>
    page((await (await cardActions()).cancelStep(web.engine, id!, f.confirm_id ?? '')).chat_id),
  );
  form('/chat/:id/edit', async (_c, f, id) =>
    page((await (await cardActions()).editDraft(web.engine, id!, f.workflow ?? '')).chat_id),
  );
  // Write-only: the value is sealed in the credential store; no page or turn ever shows it.
  form('/chat/:id/credential', async (_c, f, id) =>
    page(
      (await (await cardActions()).setDraftCredential(web.engine, id!, f.name ?? '', f.value ?? '')).chat_id,
    ),
  );
  // The card's text boxes (`body:<action>`): the drafted words as the person left them are what is saved.
  form('/chat/:id/decide', async (_c, f, id) =>
    page(
      (
        await (
          await assistant()
        ).answerInChat(web.engine, id!, f.decision_id ?? '', f.action ?? '', f.note?.trim() || null, f)
      ).chat_id,
    ),
  );
  form('/chat/:id/rename', async (_c, f, id) =>
    page((await renameChat(web.engine.store, id!, f.title ?? '')).id),
  );
  form('/chat/:id/delete', async (_c, _f, id) => {
    await deleteChat(web.engine.store, id!);
    return '/chat';
  });

  // chat.js follows a turn live: the page session, not the API key, opens it.
  app.get('/chat/:id/events', async (c) => {
    const admitted = await admit(c, web, 'stream');
    if (!admitted.ok) return admitted.response;
    const chat = await getChat(web.engine.store, c.req.param('id') ?? '').catch(() => null);
    if (!chat) return c.text('no such chat', 404);
    return streamRunWhereLive(
      c,
      web.liveFeed,
      web.engine.workspace,
      chatChannel(chat.id),
      c.req.query('after'),
    );
  });
}
