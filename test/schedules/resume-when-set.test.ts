/**
 * Setting a credential resumes the workflows paused only until it was set, whichever way it is
 * set: `handoff credentials set` (a real child process), the web's Credentials page,
 * `PUT /api/credentials/:name` and the chat card's credential field. A pause the person chose
 * stays, and one that still lacks a credential keeps waiting, naming only what is missing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { setDraftCredential } from '../../shared/assistant/card-actions.ts';
import { createChat, updateChat } from '../../shared/chats/chat-repository.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { pauseWhenDeleted, resumeWhenSet } from '../../shared/schedules/resume-when-set.ts';
import {
  getScheduleState,
  listSchedules,
  pauseUntilSet,
  setPaused,
} from '../../shared/schedules/schedules.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';
import { runCli } from '../support/cli.ts';
import { pageClient } from '../web/page-client.ts';
import { makeHarness, type Harness } from '../web/support.ts';

let h: Harness;
const SECRET = 'app-password-never-echoed';

const imap = (credential: string): Workflow['source'] => ({
  type: 'imap',
  host: '127.0.0.1',
  port: 9,
  tls: false,
  user: 'me',
  credential,
  mailbox: 'INBOX',
  auth: 'password',
});

/** Three workflows: two paused for MAIL_PASSWORD (one also for LINEAR_API_KEY), one paused by the person. */
beforeEach(async () => {
  h = await makeHarness();
  const scheduled = { trigger: { schedule: 'cron(0 8 ? * MON-FRI *)' } };
  await saveWorkflow(h.engine.store, {
    ...h.workflow,
    ...scheduled,
    id: 'mail',
    name: 'Mail',
    source: imap('MAIL_PASSWORD'),
  });
  await pauseUntilSet(h.engine.store, 'mail', ['MAIL_PASSWORD']);
  await saveWorkflow(h.engine.store, {
    ...h.workflow,
    id: 'tickets',
    name: 'Tickets',
    source: imap('MAIL_PASSWORD'),
    integrations: ['linear'],
  });
  await pauseUntilSet(h.engine.store, 'tickets', ['MAIL_PASSWORD', 'LINEAR_API_KEY']);
  await saveWorkflow(h.engine.store, {
    ...h.workflow,
    ...scheduled,
    id: 'held',
    name: 'Held',
    source: imap('MAIL_PASSWORD'),
  });
  await setPaused(h.engine.store, 'held', true);
});
afterEach(() => h.cleanup());

/** After MAIL_PASSWORD is set: `mail` runs again, `tickets` waits for LINEAR_API_KEY only, `held` stays as the person left it. */
async function expectOnlyMailResumed(): Promise<void> {
  expect(await getScheduleState(h.engine.store, 'mail')).toMatchObject({ paused: false });
  expect((await getScheduleState(h.engine.store, 'mail'))?.needs).toBeUndefined();
  expect(await getScheduleState(h.engine.store, 'tickets')).toMatchObject({
    paused: true,
    needs: ['LINEAR_API_KEY'],
  });
  expect(await getScheduleState(h.engine.store, 'held')).toMatchObject({ paused: true });
  const mail = (await listSchedules(h.engine.store)).find((s) => s.workflow_id === 'mail');
  expect(mail?.next.length).toBeGreaterThan(0); // it fires again
}

/** After MAIL_PASSWORD (set) is deleted: `mail` and `tickets` wait for it, `held` stays as the person left it. */
async function expectWaitingForMailPasswordAgain(): Promise<void> {
  expect(await getScheduleState(h.engine.store, 'mail')).toMatchObject({
    paused: true,
    needs: ['MAIL_PASSWORD'],
  });
  expect((await getScheduleState(h.engine.store, 'tickets'))?.needs?.sort()).toEqual([
    'LINEAR_API_KEY',
    'MAIL_PASSWORD',
  ]);
  const held = await getScheduleState(h.engine.store, 'held');
  expect(held).toMatchObject({ paused: true });
  expect(held?.needs).toBeUndefined();
  const mail = (await listSchedules(h.engine.store)).find((s) => s.workflow_id === 'mail');
  expect(mail?.next).toEqual([]); // it no longer fires
}

describe('setting a credential resumes what waited only for it', () => {
  it('the shared function says what it resumed and what still waits, and announces each resumed workflow', async () => {
    const announced: string[] = [];
    const onWorkflowChange = async (id: string, change: string, workspace: string) => {
      announced.push(`${id} ${change} ${workspace}`);
    };
    const before = await resumeWhenSet({ ...h.engine, onWorkflowChange });
    expect(before).toEqual({
      resumed: [],
      still_paused: [
        { workflow_id: 'mail', name: 'Mail', needs: ['MAIL_PASSWORD'] },
        { workflow_id: 'tickets', name: 'Tickets', needs: ['MAIL_PASSWORD', 'LINEAR_API_KEY'] },
      ],
    });
    expect(announced).toEqual([]);

    await h.engine.credentials.set('MAIL_PASSWORD', new Secret(SECRET));
    const after = await resumeWhenSet({ ...h.engine, onWorkflowChange });
    expect(after).toEqual({
      resumed: [{ workflow_id: 'mail', name: 'Mail' }],
      still_paused: [{ workflow_id: 'tickets', name: 'Tickets', needs: ['LINEAR_API_KEY'] }],
    });
    expect(announced).toEqual(['mail saved default']);
    await expectOnlyMailResumed();

    // Saying it again resumes nothing more; a workflow deleted while it waited is passed over.
    await h.engine.store.delete('workflows', 'tickets');
    expect(await resumeWhenSet({ ...h.engine, onWorkflowChange })).toEqual({ resumed: [], still_paused: [] });
    expect(announced).toEqual(['mail saved default']);
  });

  it('`handoff credentials set` resumes and says so', async () => {
    const file = path.join(h.dir, 'password.txt');
    await fs.writeFile(file, `${SECRET}\n`);
    const set = await runCli(['credentials', 'set', 'MAIL_PASSWORD', '--value-file', file], {
      HANDOFF_STATE_DIR: h.env.HANDOFF_STATE_DIR,
    });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('Set MAIL_PASSWORD (sealed with aes-256-gcm).');
    expect(set.stdout).toContain('Resumed mail ("Mail"): it has every credential it needs now.');
    expect(set.stdout).toContain('tickets stays paused: it still needs LINEAR_API_KEY.');
    expect(set.stdout).not.toContain(SECRET);
    await expectOnlyMailResumed();
  });

  it('the Credentials page resumes and its notice names the workflow', async () => {
    const page = pageClient(h.app);
    const posted = await page.submit(
      '/credentials',
      { name: 'MAIL_PASSWORD', value: SECRET },
      '/credentials',
    );
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/credentials?set=MAIL_PASSWORD&resumed=mail');
    const shown = await (await page.get(posted.headers.get('location')!)).text();
    expect(shown).toContain(
      'Saved MAIL_PASSWORD. Its value is not shown again. Resumed mail: nothing it needs is missing now.',
    );
    expect(shown).not.toContain(SECRET);
    await expectOnlyMailResumed();
  });

  it('PUT /api/credentials/:name sets write-only and resumes; DELETE forgets; bad input is one line', async () => {
    const put = (name: string, body: string) =>
      h.app.request(`/api/credentials/${name}`, {
        method: 'PUT',
        headers: h.auth({ 'Content-Type': 'application/json' }),
        body,
      });
    const res = await put('MAIL_PASSWORD', JSON.stringify({ value: SECRET }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({
      name: 'MAIL_PASSWORD',
      cipher: 'aes-256-gcm',
      updated_at: expect.any(String),
      resumed: [{ workflow_id: 'mail', name: 'Mail' }],
      still_paused: [{ workflow_id: 'tickets', name: 'Tickets', needs: ['LINEAR_API_KEY'] }],
    });
    expect((await h.engine.credentials.get('MAIL_PASSWORD'))?.reveal()).toBe(SECRET);
    await expectOnlyMailResumed();

    expect(await (await put('MAIL_PASSWORD', 'not json')).json()).toEqual({
      error: 'body must be JSON like {"value": "the secret"}',
    });
    expect((await put('MAIL_PASSWORD', '{"value": 3}')).status).toBe(400);
    const empty = await put('OTHER_KEY', '{"value": "  "}');
    expect(empty.status).toBe(422);
    expect(await empty.json()).toEqual({ error: 'the value of OTHER_KEY is empty: send the secret itself' });
    const badName = await put('mail-password', '{"value": "x"}');
    expect(badName.status).toBe(422);
    expect((await badName.json()) as { error: string }).toEqual({
      error: 'credential name "mail-password" must be UPPER_SNAKE_CASE, like LINEAR_API_KEY',
    });
    const noKey = await h.app.request('/api/credentials/OTHER_KEY', { method: 'PUT', body: '{"value":"x"}' });
    expect(noKey.status).toBe(401);
    expect((await h.engine.credentials.names()).has('OTHER_KEY')).toBe(false);

    const del = (name: string) =>
      h.app.request(`/api/credentials/${name}`, { method: 'DELETE', headers: h.auth() });
    const deleted = await del('MAIL_PASSWORD');
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({
      deleted: 'MAIL_PASSWORD',
      paused: [
        { workflow_id: 'mail', name: 'Mail' },
        { workflow_id: 'tickets', name: 'Tickets' },
      ],
    });
    await expectWaitingForMailPasswordAgain();
    expect(await h.engine.credentials.get('MAIL_PASSWORD')).toBeUndefined();
    const again = await del('MAIL_PASSWORD');
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 'no credential named MAIL_PASSWORD' });
  });

  it("the chat card's credential field resumes a saved workflow that waited for it, and says so", async () => {
    const chat = await createChat(h.engine.store);
    await updateChat(h.engine.store, chat.id, () => ({
      draft: { ...h.workflow, id: 'draft-mail', name: 'Draft mail', source: imap('MAIL_PASSWORD') },
    }));
    const reply = await setDraftCredential(h.engine, chat.id, 'MAIL_PASSWORD', SECRET);
    expect(reply.text).toContain('MAIL_PASSWORD is set (stored encrypted; it is never shown again).');
    expect(reply.text).toContain('Resumed mail ("Mail"): it has every credential it needs now.');
    expect(JSON.stringify(reply)).not.toContain(SECRET);
    await expectOnlyMailResumed();
  });
});

describe('deleting a credential pauses what needs it until it is set again', () => {
  beforeEach(async () => {
    await h.engine.credentials.set('MAIL_PASSWORD', new Secret(SECRET));
    await resumeWhenSet(h.engine);
    await expectOnlyMailResumed();
  });

  it('the shared function pauses each workflow once, announces it, and setting it again resumes', async () => {
    const announced: string[] = [];
    const onWorkflowChange = async (id: string, change: string, workspace: string) => {
      announced.push(`${id} ${change} ${workspace}`);
    };
    await h.engine.credentials.delete('MAIL_PASSWORD');
    expect(await pauseWhenDeleted({ ...h.engine, onWorkflowChange }, 'MAIL_PASSWORD')).toEqual([
      { workflow_id: 'mail', name: 'Mail' },
      { workflow_id: 'tickets', name: 'Tickets' },
    ]);
    expect(announced.sort()).toEqual(['mail saved default', 'tickets saved default']);
    await expectWaitingForMailPasswordAgain();
    // Said twice, nothing more; set again, `mail` runs again as before.
    expect(await pauseWhenDeleted({ ...h.engine, onWorkflowChange }, 'MAIL_PASSWORD')).toEqual([]);
    await h.engine.credentials.set('MAIL_PASSWORD', new Secret(SECRET));
    await resumeWhenSet(h.engine);
    await expectOnlyMailResumed();
  });

  it('`handoff credentials delete` pauses and says so', async () => {
    const deleted = await runCli(['credentials', 'delete', 'MAIL_PASSWORD'], {
      HANDOFF_STATE_DIR: h.env.HANDOFF_STATE_DIR,
    });
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('Deleted MAIL_PASSWORD.');
    expect(deleted.stdout).toContain('Paused mail ("Mail"), tickets ("Tickets") until it is set again.');
    await expectWaitingForMailPasswordAgain();
  });

  it('the Credentials page says which workflows stop before, and which were paused after', async () => {
    const page = pageClient(h.app);
    const confirm = await (await page.get('/credentials/MAIL_PASSWORD/delete')).text();
    expect(confirm).toMatch(
      /Held, Mail, Tickets cannot run without it:\s+they are paused until it is set again\./,
    );
    const posted = await page.submit(
      '/credentials/MAIL_PASSWORD/delete',
      {},
      '/credentials/MAIL_PASSWORD/delete',
    );
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/credentials?deleted=MAIL_PASSWORD&paused=mail%2Ctickets');
    const shown = await (await page.get(posted.headers.get('location')!)).text();
    expect(shown).toContain('Deleted MAIL_PASSWORD. Paused mail, tickets until it is set again.');
    await expectWaitingForMailPasswordAgain();
  });
});
