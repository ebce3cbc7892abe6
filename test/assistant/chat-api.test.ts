import { afterEach, describe, expect, it } from '@jest/globals';
import { feed } from '../../shared/events/feed.ts';
import { createApp } from '../../shared/web/app.ts';
import { makeHarness, readSse, type Harness } from '../web/support.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function post(path: string, body: unknown, raw = false): Promise<Response> {
  return h!.app.request(path, {
    method: 'POST',
    headers: h!.auth({ 'Content-Type': 'application/json' }),
    body: raw ? (body as string) : JSON.stringify(body),
  });
}

describe('the chat API', () => {
  it('creates a chat, answers a message with a draft waiting for a yes, saves on the yes, and shows the turns', async () => {
    h = await makeHarness();
    const created = await post('/api/chats', {});
    expect(created.status).toBe(201);
    const { chat_id } = (await created.json()) as { chat_id: string };
    expect(chat_id).toMatch(/^chat_/);

    const asked = await post(`/api/chats/${chat_id}/messages`, {
      message: 'every weekday at 8, go through my inbox, archive newsletters',
    });
    expect(asked.status).toBe(200);
    const reply = (await asked.json()) as { chat_id: string; text: string; confirm?: { tool: string } };
    expect(reply).toMatchObject({ chat_id, confirm: { tool: 'save_workflow' } });
    expect(Object.keys(reply).sort()).toEqual(['chat_id', 'confirm', 'text']);
    const kinds = feed.history(`chat:${chat_id}`).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['handoff', 'tool_start', 'tool_end', 'delta', 'done']));

    const saved = (await (await post(`/api/chats/${chat_id}/messages`, { message: 'save it' })).json()) as {
      workflow_id: string;
    };
    expect(saved.workflow_id).toBe('inbox-triage-2');
    const workflows = (await (await h.app.request('/api/workflows', { headers: h.auth() })).json()) as {
      id: string;
    }[];
    expect(workflows.map((w) => w.id)).toEqual(['inbox-triage', 'inbox-triage-2']);

    const shown = (await (await h.app.request(`/api/chats/${chat_id}`, { headers: h.auth() })).json()) as {
      chat_id: string;
      turns: { role: string; cards: { kind: string }[] }[];
      confirm: unknown;
    };
    expect(shown.chat_id).toBe(chat_id);
    expect(shown.confirm).toBeNull();
    expect(shown.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(shown.turns[1]!.cards.map((c) => c.kind)).toEqual(['handoff', 'preview', 'confirm']);
    expect(shown.turns[3]!.cards.map((c) => c.kind)).toEqual(['workflow_saved']);
    const list = (await (await h.app.request('/api/chats', { headers: h.auth() })).json()) as {
      chat_id: string;
    }[];
    expect(list.map((c) => c.chat_id)).toEqual([chat_id]);
  });

  it("streams a turn on the chat's feed to the Chat page over SSE: handoff, tools, text, done", async () => {
    h = await makeHarness();
    const { chat_id } = (await (await post('/api/chats', {})).json()) as { chat_id: string };
    const stream = await h.app.request(`/chat/${chat_id}/events`);
    expect(stream.headers.get('Content-Type')).toMatch(/text\/event-stream/);
    const reading = readSse(stream.body!, (e) => e.event === 'done');
    await post(`/api/chats/${chat_id}/messages`, {
      message: 'archive newsletters in my inbox every morning',
    });
    const { events } = await reading;
    const kinds = events.map((e) => e.event);
    expect(kinds.indexOf('handoff')).toBeLessThan(kinds.indexOf('tool_start'));
    expect(kinds).toEqual(expect.arrayContaining(['handoff', 'tool_start', 'tool_end', 'delta', 'done']));
    const done = JSON.parse(events.at(-1)!.data) as { data: { chat_id: string; confirm: { tool: string } } };
    expect(done.data).toMatchObject({ chat_id, confirm: { tool: 'save_workflow' } });
    expect((await h.app.request('/chat/chat_nosuchchat/events')).status).toBe(404);
  });

  it('refuses bad input with one clear line and a 4xx, and changes nothing', async () => {
    h = await makeHarness();
    const { chat_id } = (await (await post('/api/chats', {})).json()) as { chat_id: string };
    const before = {
      chats: await h.engine.store.list('chats'),
      turns: await h.engine.store.list('chat_turns'),
    };
    const cases: [Response | Promise<Response>, number, RegExp][] = [
      [post(`/api/chats/${chat_id}/messages`, { message: '' }), 422, /message is empty/],
      [post(`/api/chats/${chat_id}/messages`, { message: ' \n ' }), 422, /message is empty/],
      [
        post(`/api/chats/${chat_id}/messages`, { message: 'x'.repeat(500_000) }),
        422,
        /500000 characters; the most is 8000/,
      ],
      [post(`/api/chats/${chat_id}/messages`, { message: 'x'.repeat(1024 * 1024) }), 413, /too large/],
      [post(`/api/chats/${chat_id}/messages`, { message: 42 }), 422, /message must be a string/],
      [post(`/api/chats/${chat_id}/messages`, '{"message": ', true), 400, /body must be JSON/],
      [post('/api/chats/chat_nosuchchat/messages', { message: 'hi' }), 404, /no chat "chat_nosuchchat"/],
      [h.app.request('/api/chats/chat_nosuchchat', { headers: h.auth() }), 404, /no chat/],
      [
        h.app.request(`/api/chats/${chat_id}/messages`, { method: 'POST', body: '{"message":"hi"}' }),
        401,
        /bearer/,
      ],
    ];
    for (const [response, status, pattern] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      const { error } = (await res.json()) as { error: string };
      expect(error).toMatch(pattern);
      expect(error.split('\n')).toHaveLength(1);
    }
    expect({
      chats: await h.engine.store.list('chats'),
      turns: await h.engine.store.list('chat_turns'),
    }).toEqual(before);
  });

  it('on the deployed API (a gateway before Lambda) the same chat routes answer an IAM caller', async () => {
    h = await makeHarness();
    const lambda = createApp({
      engine: h.engine,
      env: h.env,
      runner: h.launcher,
      requireToken: true,
      iamApi: true,
      hosts: () => ['api.example.com'],
    });
    // API Gateway signs IAM callers in at /admin/api/* and says who they are in the event.
    const iam = {
      requestContext: { authorizer: { iam: { userArn: 'arn:aws:iam::111122223333:user/ops' } } },
    };
    const request = (path: string, init: RequestInit = {}) =>
      lambda.request(`https://api.example.com${path.replace(/^\/api\//, '/admin/api/')}`, init, iam);
    const { chat_id } = (await (await request('/api/chats', { method: 'POST' })).json()) as {
      chat_id: string;
    };
    const res = await request(`/api/chats/${chat_id}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'what is waiting for me?' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe('Nothing is waiting for you.');
    const turns = ((await (await request(`/api/chats/${chat_id}`)).json()) as { turns: unknown[] }).turns;
    expect(turns).toHaveLength(2);
  });
});
