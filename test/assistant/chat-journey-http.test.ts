/**
 * Multi-turn chats as a person has them: over real HTTP against the local server, and with
 * `handoff chat` as a real child process on the same chat id and state.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowCard } from '../../shared/chats/chat-records.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import type { Env } from '../../shared/config/env.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { getDecision } from '../../shared/runs/decision-repository.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { runCli } from '../support/cli.ts';
import { API_KEY, makeEngine } from '../web/support.ts';

interface Reply {
  chat_id: string;
  text: string;
  workflow_id?: string;
  run_id?: string;
  confirm?: { id: string; tool: string; summary: string; card?: WorkflowCard };
}

let dir: string;
let env: Env;
let engine: EngineDeps;
let server: RunningServer;

beforeAll(async () => {
  ({ dir, env, engine } = await makeEngine({ HANDOFF_API_KEY: API_KEY }));
  server = await serve({ env, engine, port: 0, print: () => {} }); // writes the demo inbox-triage
});

afterAll(async () => {
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const auth = { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' };

async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: auth,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const web = (chatId: string, message: string) => api<Reply>(`/api/chats/${chatId}/messages`, { message });

async function cli(chatId: string, message: string): Promise<Reply> {
  const result = await runCli(['chat', '--chat', chatId, '--message', message, '--json'], {
    HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR,
  });
  if (result.code !== 0) throw new Error(`handoff chat exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Reply;
}

/** A browser: keeps the page session's cookie, reads the CSRF token off the page, posts forms. */
function browser() {
  let cookie = '';
  const remember = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith('handoff_session='));
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
  return {
    get: async (path: string) =>
      remember(await fetch(`${server.url}${path}`, { headers: { Cookie: cookie }, redirect: 'manual' })),
    post: async (path: string, fields: Record<string, string>) =>
      remember(
        await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields),
          redirect: 'manual',
        }),
      ),
  };
}

describe('a chat over HTTP and `handoff chat` on the same chat id', () => {
  it('builds, refines three times across both surfaces, shows, saves, runs, answers about decisions, rules and the day, and deletes', async () => {
    const { chat_id: chat } = await api<{ chat_id: string }>('/api/chats', {});
    const drafted = await web(chat, 'every weekday at 8, go through my inbox, archive newsletters');
    expect(drafted.confirm?.tool).toBe('save_workflow');
    const card = drafted.confirm!.card!;
    expect(card).toMatchObject({
      schedule: 'every weekday at 08:00 (UTC)',
      credentials: [],
      saves_as: 'active',
      actions: ['archive'],
    });
    expect(card.source).toMatch(/^the Maildir folder \/.* on this machine$/);
    expect(card.preview?.rows.length).toBeGreaterThan(0);
    const id = card.workflow_id;

    // Refined in the terminal, in the browser's API, and in the terminal again.
    const nine = await cli(chat, 'make it 9am instead of 8');
    expect(nine.text).toContain('schedule: every weekday at 08:00 (UTC) → every weekday at 09:00 (UTC)');
    const invoices = await web(chat, 'also ask about invoices');
    expect(invoices.text).toContain('instructions: added "Ask me about invoices; never act on them alone."');
    const careful = await cli(chat, 'be more careful');
    expect(careful.text).toMatch(/threshold: .*\(0\.7\) → .*\(0\.85\)/);

    const shown = await web(chat, 'show me the workflow you drafted');
    expect(shown.text).toContain('Schedule: every weekday at 09:00 (UTC)');
    expect(shown.text).toContain('Ask me about invoices');
    expect(shown.text).toContain('85% sure');
    expect(shown.confirm?.tool).toBe('save_workflow');

    // The page shows the waiting card with the whole workflow and Yes, No and Edit.
    const page = await (await browser().get(`/chat/${chat}`)).text();
    expect(page).toMatch(/data-part="schedule">every weekday at 09:00 \(UTC\)/);
    expect(page).toMatch(/data-answer="yes">Yes</);
    expect(page).toMatch(/data-answer="no">No</);
    expect(page).toMatch(/<summary class="button">Edit<\/summary>/);

    const saved = await cli(chat, 'yes');
    expect(saved.workflow_id).toBe(id);
    expect((await api<{ id: string }[]>('/api/workflows')).map((w) => w.id)).toContain(id);
    expect(await getWorkflow(engine.store, id)).toMatchObject({
      confidence_threshold: 0.85,
      trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' },
    });

    const asked = await web(chat, 'run it now');
    expect(asked.confirm?.tool).toBe('start_run');
    const ran = await web(chat, 'yes');
    expect(ran.run_id).toMatch(/^run_/);

    const pending = await api<{ decision_id: string; subject: string }[]>('/api/pending');
    expect(pending.length).toBeGreaterThan(0);
    const question = pending[0]!;
    const why = await cli(chat, `why did you ask me about ${question.subject}?`);
    expect(why.text).toContain(`I asked about "${question.subject}"`);
    expect(why.text).toContain(question.decision_id);
    expect(why.confirm).toBeUndefined();

    const decision = await getDecision(engine.store, question.decision_id);
    expect(why.text).toContain(`My reasoning then: ${decision.reasoning}`);
    const answer = decision.options.includes('archive') ? 'archive' : decision.options[0]!;
    await api(`/api/decisions/${question.decision_id}`, { action: answer, note: 'always do this for these' });
    const rules = await web(chat, 'what rules have you learned?');
    const live = (await listRules(engine.store)).filter((r) => r.superseded_by === null);
    if (live.length === 0) expect(rules.text).toMatch(/^I have no rules yet/);
    else for (const r of live) expect(rules.text).toContain(r.id);
    expect(rules.text).not.toMatch(/question\(s\) wait for you/);

    const today = await web(chat, 'what did you do today?');
    expect(today.text).toMatch(/^On \d{4}-\d{2}-\d{2} \(UTC\): (1 run|\d+ runs)[;.]/);

    const del = await cli(chat, `delete the workflow ${id}`);
    expect(del.confirm?.tool).toBe('delete_workflow');
    expect((await api<{ id: string }[]>('/api/workflows')).map((w) => w.id)).toContain(id);
    const deleted = await web(chat, 'yes');
    expect(deleted.text).toBe(`Deleted workflow ${id}.`);
    expect((await api<{ id: string }[]>('/api/workflows')).map((w) => w.id)).not.toContain(id);

    const never = await web(chat, 'delete the workflow inbox-triage-3');
    expect(never.confirm).toBeUndefined();
    expect(never.text).toMatch(/There is no workflow "inbox-triage-3"/);
  });

  it('a workflow whose credential is missing is never saved active: asked for on the card, else saved paused and `doctor` says so', async () => {
    const { chat_id: chat } = await api<{ chat_id: string }>('/api/chats', {});
    const drafted = await web(
      chat,
      'every weekday at 8 archive newsletters from my Fastmail inbox as me@fastmail.com',
    );
    expect(drafted.confirm?.summary).toMatch(/, paused until MAIL_PASSWORD is set$/);
    expect(drafted.confirm?.card).toMatchObject({
      credentials: [{ name: 'MAIL_PASSWORD', set: false }],
      saves_as: 'paused',
    });
    expect(drafted.text).toContain('handoff credentials set MAIL_PASSWORD');
    const id = drafted.confirm!.card!.workflow_id;

    // The page asks for it in a write-only field.
    const page = await (await browser().get(`/chat/${chat}`)).text();
    expect(page).toMatch(/<input id="cred-MAIL_PASSWORD" name="value" type="password" autocomplete="off"/);
    expect(page).toContain('Needs MAIL_PASSWORD');

    const saved = await cli(chat, 'yes');
    expect(saved.workflow_id).toBe(id);
    expect(saved.text).toMatch(/paused: it needs MAIL_PASSWORD/);
    const schedules =
      await api<{ workflow_id: string; paused: boolean; needs?: string[] }[]>('/api/schedules');
    expect(schedules.find((s) => s.workflow_id === id)).toMatchObject({
      paused: true,
      needs: ['MAIL_PASSWORD'],
    });
    const table = await runCli(['schedules'], { HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR });
    expect(table.stdout).toMatch(new RegExp(`${id} .*paused \\(needs MAIL_PASSWORD\\)`));
    const doctor = await runCli(['doctor'], { HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR });
    expect(doctor.stdout).toMatch(
      new RegExp(`${id}.*paused: needs MAIL_PASSWORD.*handoff credentials set MAIL_PASSWORD`),
    );

    const resumed = await runCli(['schedules', 'resume', id], { HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr.trim().split('\n')).toHaveLength(1);
    expect(resumed.stderr).toMatch(/stays paused: it needs MAIL_PASSWORD/);
    const overApi = await fetch(`${server.url}/api/schedules/${id}/resume`, {
      method: 'POST',
      headers: auth,
    });
    expect(overApi.status).toBe(422);
    expect(
      (await api<{ workflow_id: string; paused: boolean }[]>('/api/schedules')).find(
        (s) => s.workflow_id === id,
      )?.paused,
    ).toBe(true);
    const run = await web(chat, `run ${id} now`);
    expect(run.confirm).toBeUndefined();
    expect(run.text).toMatch(/cannot run: it needs MAIL_PASSWORD/);
    const resume = await web(chat, `resume ${id}`);
    expect(resume.text).toMatch(/stays paused: it needs MAIL_PASSWORD/);

    // Set in the terminal, it resumes by itself and says so; doctor no longer calls it paused.
    const file = path.join(dir, 'mail-password.txt');
    await fs.writeFile(file, 'app-password\n');
    const set = await runCli(['credentials', 'set', 'MAIL_PASSWORD', '--value-file', file], {
      HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR,
    });
    expect(set.stdout).toContain(`Resumed ${id} (`);
    expect(
      (await api<{ workflow_id: string; paused: boolean }[]>('/api/schedules')).find(
        (s) => s.workflow_id === id,
      ),
    ).toMatchObject({ paused: false });
    const after = await runCli(['doctor'], { HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR });
    expect(after.stdout).not.toMatch(new RegExp(`${id}.*paused`));
    // Forgotten again over the API, for the next chat to ask for it.
    const forgot = await fetch(`${server.url}/api/credentials/MAIL_PASSWORD`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(await forgot.json()).toEqual({
      deleted: 'MAIL_PASSWORD',
      paused: [{ workflow_id: id, name: expect.any(String) }], // waits for it again
    });
  });

  it("the card's write-only field sets the credential on the web; the card then says it is set and saves it active", async () => {
    const { chat_id: chat } = await api<{ chat_id: string }>('/api/chats', {});
    await web(chat, 'every day at 7 archive receipts from imap.example.org as me@example.org');
    const b = browser();
    const page = await (await b.get(`/chat/${chat}`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    expect(csrf).toBeTruthy();

    // Edit: the workflow itself, checked as a workflow file is; a bad one changes nothing.
    const yaml = /<textarea id="edit-[^"]+" name="workflow" rows="14">([\s\S]*?)<\/textarea>/.exec(page)?.[1];
    expect(yaml).toContain('schedule: cron(0 7 * * ? *)');
    const unescaped = yaml!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    const bad = await b.post(`/chat/${chat}/edit`, {
      _csrf: csrf!,
      workflow: unescaped.replace('cron(0 7 * * ? *)', 'cron(nope)'),
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toMatch(/role="alert">draft\.yaml: trigger\.schedule: /);
    const edited = await b.post(`/chat/${chat}/edit`, {
      _csrf: csrf!,
      workflow: unescaped.replace('cron(0 7 * * ? *)', 'cron(30 6 * * ? *)'),
    });
    expect(edited.status).toBe(303);
    const afterEdit = await api<{ turns: { text: string }[]; confirm: { id: string } | null }>(
      `/api/chats/${chat}`,
    );
    expect(afterEdit.turns.at(-1)!.text).toBe(
      'Changed schedule: every day at 07:00 (UTC) → every day at 06:30 (UTC). Save it? Say yes, no, or what to change.',
    );

    // No: the card is dropped, the draft kept; "save it" asks again.
    const no = await b.post(`/chat/${chat}/cancel`, { _csrf: csrf!, confirm_id: afterEdit.confirm!.id });
    expect(no.status).toBe(303);
    expect((await api<{ confirm: unknown }>(`/api/chats/${chat}`)).confirm).toBeNull();
    expect((await web(chat, 'save it')).confirm?.tool).toBe('save_workflow');

    const posted = await b.post(`/chat/${chat}/credential`, {
      _csrf: csrf!,
      name: 'MAIL_PASSWORD',
      value: 'app-password-123',
    });
    expect(posted.status).toBe(303);
    const after = await (await b.get(`/chat/${chat}`)).text();
    expect(after).not.toContain('app-password-123');
    expect(after).toMatch(/data-credential="MAIL_PASSWORD" data-set="true"/);
    const chatJson = await api<{ confirm: { summary: string } | null; turns: { text: string }[] }>(
      `/api/chats/${chat}`,
    );
    expect(JSON.stringify(chatJson)).not.toContain('app-password-123');
    expect(chatJson.confirm?.summary).not.toMatch(/paused/);
    const saved = await web(chat, 'yes');
    expect(saved.text).toMatch(/^Saved ".*" as workflow [a-z0-9-]+\. Say "run it now"/);
  });
});
