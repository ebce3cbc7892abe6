/**
 * The confirmation card over the API, on the local server over real HTTP: edit the draft field
 * by field (every problem listed, nothing changed), No, the write-only credential field, and
 * Yes, which saves the workflow active once nothing it needs is missing.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowCard } from '../../shared/chats/chat-records.ts';
import type { Env } from '../../shared/config/env.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { getScheduleState } from '../../shared/schedules/schedules.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { API_KEY, makeEngine } from '../web/support.ts';

interface Reply {
  chat_id: string;
  text: string;
  workflow_id?: string;
  confirm?: { id: string; tool: string; summary: string; card?: WorkflowCard };
}

let dir: string;
let env: Env;
let engine: EngineDeps;
let server: RunningServer;
const SECRET = 'app-password-on-the-card';

beforeAll(async () => {
  ({ dir, env, engine } = await makeEngine({ HANDOFF_API_KEY: API_KEY }));
  server = await serve({ env, engine, port: 0, print: () => {} });
});
afterAll(async () => {
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const auth = { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' };
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: auth,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
async function ok<T>(res: Response): Promise<T> {
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
const chatOf = async (id: string) =>
  ok<{ confirm: { id: string; card?: WorkflowCard } | null; turns: { text: string }[] }>(
    await fetch(`${server.url}/api/chats/${id}`, { headers: auth }),
  );

describe('the chat card over the API', () => {
  it('edits the draft by fields, lists every problem, cancels, takes the credential write-only and saves it active on yes', async () => {
    const created = await post('/api/chats', {});
    expect(created.status).toBe(201);
    const { chat_id: chat } = (await created.json()) as { chat_id: string };
    const drafted = await ok<Reply>(
      await post(`/api/chats/${chat}/messages`, {
        message: 'every day at 7 archive receipts from imap.example.org as me@example.org',
      }),
    );
    expect(drafted.confirm?.card).toMatchObject({ saves_as: 'paused', schedule: 'every day at 07:00 (UTC)' });
    const id = drafted.confirm!.card!.workflow_id;

    // Edit: fields in words; what changed is said and the card shown again.
    const edited = await ok<Reply>(
      await post(`/api/chats/${chat}/draft`, {
        fields: { schedule: 'every weekday at 9', threshold: '80%', source: '{ mailbox: Receipts }' },
      }),
    );
    expect(edited.text).toContain('schedule: every day at 07:00 (UTC) → every weekday at 09:00 (UTC)');
    expect(edited.text).toMatch(/threshold: .*\(0\.7\) → .*\(0\.8\)/);
    expect(edited.text).toContain('the IMAP mailbox Receipts of me@example.org');
    expect(edited.confirm?.card).toMatchObject({ schedule: 'every weekday at 09:00 (UTC)' });

    // Every problem at once, 422, and nothing changed.
    const refused = await post(`/api/chats/${chat}/draft`, {
      fields: { schedule: 'whenever', threshold: 'lots', colour: 'red', actions: 'archive, explode' },
    });
    expect(refused.status).toBe(422);
    const problems = (await refused.json()) as { error: string; problems: string[] };
    expect(problems.problems).toEqual([
      expect.stringMatching(/^"colour" is not a field you can edit here/),
      expect.stringMatching(/^schedule: "whenever" is not a schedule/),
      expect.stringMatching(/^threshold: "lots" is not a threshold/),
      expect.stringMatching(/^actions: the imap source cannot "explode"/),
    ]);
    expect(problems.error).toMatch(/^the draft was not changed: 4 problems: /);
    expect((await chatOf(chat)).confirm?.card).toMatchObject({ schedule: 'every weekday at 09:00 (UTC)' });

    // The whole draft as YAML is Edit too; a bad one is refused with the field named.
    const badYaml = await post(`/api/chats/${chat}/draft`, { workflow: 'id: x\nname: y\n' });
    expect(badYaml.status).toBe(422);
    expect(((await badYaml.json()) as { error: string }).error).toMatch(/^draft\.yaml: /);

    // Bodies it does not take: 400 with the shape; an unknown chat: 404.
    expect((await post(`/api/chats/${chat}/draft`, 'nope')).status).toBe(400);
    expect((await post(`/api/chats/${chat}/confirm`, {})).status).toBe(400);
    expect((await post('/api/chats/chat_nope/confirm', { confirm_id: 'x' })).status).toBe(404);

    // No: the card goes, the draft stays; "save it" asks again.
    const waiting = (await chatOf(chat)).confirm!.id;
    const no = await ok<Reply>(await post(`/api/chats/${chat}/cancel`, { confirm_id: waiting }));
    expect(no.text).toMatch(/^Cancelled: .* The draft is kept/);
    expect((await chatOf(chat)).confirm).toBeNull();
    const stale = await post(`/api/chats/${chat}/confirm`, { confirm_id: waiting });
    expect(stale.status).toBe(422);
    expect(((await stale.json()) as { error: string }).error).toMatch(/no longer waiting/);
    await ok<Reply>(await post(`/api/chats/${chat}/messages`, { message: 'save it' }));

    // The credential field: set write-only; the card then saves it active.
    const set = await post(`/api/chats/${chat}/credential`, { name: 'MAIL_PASSWORD', value: SECRET });
    const setText = await set.text();
    expect(set.status).toBe(200);
    expect(setText).not.toContain(SECRET);
    expect((JSON.parse(setText) as Reply).text).toMatch(/^MAIL_PASSWORD is set \(stored encrypted/);
    expect((await engine.credentials.get('MAIL_PASSWORD'))?.reveal()).toBe(SECRET);
    const card = await chatOf(chat);
    expect(JSON.stringify(card)).not.toContain(SECRET);
    expect(card.confirm?.card).toMatchObject({
      saves_as: 'active',
      credentials: [{ name: 'MAIL_PASSWORD', set: true }],
    });
    const wrong = await post(`/api/chats/${chat}/credential`, { name: 'OTHER_KEY', value: 'x' });
    expect(wrong.status).toBe(422);

    // Yes: saved active, with the edited fields.
    const saved = await ok<Reply>(await post(`/api/chats/${chat}/confirm`, { confirm_id: card.confirm!.id }));
    expect(saved.workflow_id).toBe(id);
    expect(saved.text).toMatch(/^Saved ".*" as workflow .*\. Say "run it now"/);
    expect(await getWorkflow(engine.store, id)).toMatchObject({
      trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' },
      confidence_threshold: 0.8,
      source: { mailbox: 'Receipts' },
    });
    expect((await getScheduleState(engine.store, id))?.paused ?? false).toBe(false);
  });
});
