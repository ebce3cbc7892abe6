/**
 * Where assistant turns run elsewhere (AWS: the agent function), neither the chat API nor the
 * Chat page runs a model inside the request: the message is checked (one line, nothing sent,
 * when it is bad), sent under a new turn id, and accepted at once. The function that runs it
 * answers each turn once, however often the event is delivered.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { runAgentWork } from '../../shared/aws/agent-work.ts';
import { readTurns, getChat, createChat } from '../../shared/chats/chat-repository.ts';
import { sendMessageOnce, TURN_LEASE_MS, TurnInProgressError } from '../../shared/assistant/turn-once.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { createApp } from '../../shared/web/app.ts';
import type { ChatTurnWork } from '../../shared/web/chat-api-routes.ts';
import { makeHarness, type Harness } from '../web/support.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const BASE = 'http://127.0.0.1:3000';

/** The app as the api function serves it: turns go to `sent`; any model call fails the test. */
async function offRequest() {
  h = await makeHarness();
  const calls: string[] = [];
  const engine: EngineDeps = {
    ...h.engine,
    models: async (role) => {
      calls.push(role);
      throw new Error('a model was called inside the request');
    },
  };
  const sent: ChatTurnWork[] = [];
  const app = createApp({
    engine,
    env: h.env,
    runner: h.launcher,
    sendChatTurn: async (t) => void sent.push(t),
  });
  return { app, engine, sent, calls };
}

describe('the chat API, turns sent elsewhere', () => {
  it('accepts a message with 202 and its turn id, and runs no model', async () => {
    const { app, sent, calls } = await offRequest();
    const chat = await createChat(h!.engine.store);
    const res = await app.request(`/api/chats/${chat.id}/messages`, {
      method: 'POST',
      headers: h!.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ message: 'archive newsletters every morning' }),
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { chat_id: string; turn_id: string };
    expect(body).toEqual({ chat_id: chat.id, turn_id: expect.stringMatching(/^turn_/) });
    expect(sent).toEqual([
      {
        chat_id: chat.id,
        turn_id: body.turn_id,
        message: 'archive newsletters every morning',
        workspace: 'default',
      },
    ]);
    expect(calls).toEqual([]);
    expect(await readTurns(h!.engine.store, await getChat(h!.engine.store, chat.id))).toEqual([]);
  });

  it('refuses an empty message with one line and sends nothing', async () => {
    const { app, sent } = await offRequest();
    const chat = await createChat(h!.engine.store);
    const res = await app.request(`/api/chats/${chat.id}/messages`, {
      method: 'POST',
      headers: h!.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ message: '   ' }),
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('the message is empty');
    expect(sent).toEqual([]);
  });
});

describe('the Chat page, turns sent elsewhere', () => {
  /** GET a chat page with the session cookie; the cookie and the page's CSRF token. */
  async function open(app: Harness['app'], path: string, cookie = '') {
    const res = await app.request(`${BASE}${path}`, { headers: { Cookie: cookie } });
    const set = res.headers.getSetCookie().find((c) => c.startsWith('handoff_session='));
    const html = await res.text();
    return {
      html,
      cookie: set ? set.split(';')[0]! : cookie,
      csrf: /name="_csrf" value="([^"]+)"/.exec(html)![1]!,
    };
  }
  const post = (app: Harness['app'], path: string, cookie: string, fields: Record<string, string>) =>
    app.request(`${BASE}${path}`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams(fields),
    });

  it('sends the message from the form, redirects at once to the chat saying so, and runs no model', async () => {
    const { app, sent, calls } = await offRequest();
    const chat = await createChat(h!.engine.store);
    const page = await open(app, `/chat/${chat.id}`);
    const res = await post(app, `/chat/${chat.id}`, page.cookie, {
      _csrf: page.csrf,
      message: 'archive receipts',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe(`/chat/${chat.id}?sent=1`);
    expect(sent).toEqual([expect.objectContaining({ chat_id: chat.id, message: 'archive receipts' })]);
    expect(calls).toEqual([]);
    const after = await open(app, `/chat/${chat.id}?sent=1`, page.cookie);
    expect(after.html).toContain(
      'Sent. The assistant is answering; its reply appears here (reload the page).',
    );
  });

  it('a new chat from the form is made and its message sent; an empty message is refused on the page, nothing sent', async () => {
    const { app, sent } = await offRequest();
    const page = await open(app, '/chat');
    const made = await post(app, '/chat', page.cookie, { _csrf: page.csrf, message: 'file bug reports' });
    expect(made.status).toBe(303);
    const chatId = /^\/chat\/([^?]+)\?sent=1$/.exec(made.headers.get('Location') ?? '')![1]!;
    expect(sent).toEqual([expect.objectContaining({ chat_id: chatId, message: 'file bug reports' })]);
    const empty = await post(app, `/chat/${chatId}`, page.cookie, { _csrf: page.csrf, message: '' });
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain('the message is empty');
    expect(sent).toHaveLength(1);
  });
});

describe('a turn delivered more than once', () => {
  it('is answered once: a second delivery gets the recorded reply and runs nothing', async () => {
    h = await makeHarness();
    const chat = await createChat(h.engine.store);
    const event = {
      'detail-type': 'handoff.chat-turn',
      detail: { chat_id: chat.id, turn_id: 'turn_1', message: 'archive newsletters every morning' },
    };
    const first = await runAgentWork(() => h!.engine, event);
    expect(first).toMatchObject({ chat_id: chat.id, turn_id: 'turn_1', duplicate: false });
    const turns = await readTurns(h.engine.store, await getChat(h.engine.store, chat.id));
    expect(turns.map((t) => [t.role, t.turn_id])).toEqual([
      ['user', 'turn_1'],
      ['assistant', 'turn_1'],
    ]);
    const noModel: EngineDeps = {
      ...h.engine,
      models: async () => {
        throw new Error('the turn ran again');
      },
    };
    const again = await runAgentWork(() => noModel, event);
    expect(again).toEqual({ ...first, duplicate: true });
    expect(await readTurns(h.engine.store, await getChat(h.engine.store, chat.id))).toEqual(turns);
  });

  it('while another delivery answers it is refused (the host retries); one a dead delivery held too long is taken over', async () => {
    h = await makeHarness();
    const chat = await createChat(h.engine.store);
    const taken = new Date();
    await h.engine.store.create('turn_claims', {
      id: `${chat.id}:turn_2`,
      chat_id: chat.id,
      turn_id: 'turn_2',
      status: 'answering',
      taken_at: taken.toISOString(),
    });
    await expect(sendMessageOnce(h.engine, chat.id, 'hello', 'turn_2', () => taken)).rejects.toThrow(
      TurnInProgressError,
    );
    const late = () => new Date(taken.getTime() + TURN_LEASE_MS + 1);
    const reply = await sendMessageOnce(h.engine, chat.id, 'hello', 'turn_2', late);
    expect(reply).toMatchObject({ chat_id: chat.id, turn_id: 'turn_2', duplicate: false });
    expect(await h.engine.store.get('turn_claims', `${chat.id}:turn_2`)).toMatchObject({
      status: 'answered',
    });
  });

  it('a turn that throws gives its claim back, so the retry runs it', async () => {
    h = await makeHarness();
    const chat = await createChat(h.engine.store);
    await h.engine.store.delete('chats', chat.id); // the turn cannot find its chat: it throws
    await expect(sendMessageOnce(h.engine, chat.id, 'hello', 'turn_3')).rejects.toThrow();
    expect(await h.engine.store.get('turn_claims', `${chat.id}:turn_3`)).toBeUndefined();
  });
});
