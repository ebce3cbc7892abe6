/**
 * The Workflows pages over HTTP: a person sees each workflow's source, schedule in words,
 * last result and whether it can run; edits it with a form or its YAML (every problem
 * listed, nothing saved); pauses, renames, duplicates (saved paused) and deletes it after
 * a confirm step, with no terminal.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { listRunsOf } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { isPaused } from '../../shared/schedules/schedules.ts';
import { getWorkflow, listWorkflows, saveWorkflow } from '../../shared/workflows/repository.ts';
import { createApp } from '../../shared/web/app.ts';
import { pageClient, type PageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let page: PageClient;
const changes: string[] = [];

beforeEach(async () => {
  h = await makeHarness();
  changes.length = 0;
  const app = createApp({
    engine: h.engine,
    env: h.env,
    runner: h.launcher,
    onWorkflowChange: async (id, change) => void changes.push(`${change} ${id}`),
  });
  page = pageClient(app);
});
afterEach(() => h.cleanup());

const IMAP_SOURCE = {
  type: 'imap' as const,
  host: 'imap.example.com',
  port: 993,
  tls: true,
  user: 'me@example.com',
  credential: 'MAIL_PASSWORD',
  mailbox: 'INBOX',
  auth: 'password' as const,
};

describe('the Workflows list', () => {
  it('shows each workflow with its source, schedule in words, last result, and marks one that cannot run', async () => {
    await saveWorkflow(h.engine.store, {
      ...h.workflow,
      id: 'team-inbox',
      name: 'Team inbox',
      trigger: { schedule: 'cron(0 8 ? * MON-FRI *)' },
      source: IMAP_SOURCE,
    });
    await startRun(h.engine, 'inbox-triage', { kind: 'manual', detail: null });

    const res = await page.get('/workflows');
    expect(res.status).toBe(200);
    const html = await res.text();
    const card = (id: string) => html.split(`data-workflow="${id}"`)[1]!.split('</li>')[0]!;
    const team = card('team-inbox');
    expect(team).toContain('mailbox me@example.com on imap.example.com');
    expect(team).toMatch(/weekdays at 08:00 \(UTC\)/);
    expect(team).not.toContain('cron(');
    expect(team).toContain('Cannot run: credential MAIL_PASSWORD is not set');
    expect(team).toMatch(/will not run until credential MAIL_PASSWORD is not set is fixed/);
    const demo = card('inbox-triage');
    expect(demo).toContain('data-readiness="ready"');
    expect(demo).toMatch(/data-last-result>waiting for you: \d+ acted/);
    expect(html).toContain('href="/workflows" aria-current="page"');
  });

  it('says when two workflows share a name', async () => {
    await saveWorkflow(h.engine.store, { ...h.workflow, id: 'inbox-2' });
    const html = await (await page.get('/workflows')).text();
    expect(html).toContain('Same name as inbox-2');
    expect(html).toContain('Same name as inbox-triage');
  });
});

describe('adding a workflow from the browser', () => {
  it('lists every problem (422) and saves nothing; a good one is saved and opened', async () => {
    const yaml =
      'id: Bad Id\nname: ""\ninstructions: x\ntrigger: { manual: true }\nsource: { type: maildir, path: relative }\nactions: []\nhuman_gate: { options: [skip] }\n';
    const refused = await page.submit('/workflows', { yaml }, '/workflows/new');
    expect(refused.status).toBe(422);
    const text = await refused.text();
    const items = [...text.matchAll(/<li>([^<]+)<\/li>/g)].map((m) => m[1]);
    expect(items.filter((i) => /^(id|name|source\.path|actions): /.test(i!))).toHaveLength(4);
    expect(text).toMatch(/Fix\s+these 4 problems/);
    expect(await listWorkflows(h.engine.store)).toHaveLength(1);

    const good = (await (await page.get('/workflows/new')).text())
      .split('<textarea id="yaml" name="yaml" rows="24" spellcheck="false" class="mono">')[1]!
      .split('</textarea>')[0]!
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>');
    const saved = await page.submit(
      '/workflows',
      { yaml: good.replace(/^id: .*$/m, 'id: from-web') },
      '/workflows/new',
    );
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toMatch(/^\/workflows\/from-web\?created=/);
    expect((await getWorkflow(h.engine.store, 'from-web')).id).toBe('from-web');
    expect(changes).toEqual(['saved from-web']);

    const again = await page.submit(
      '/workflows',
      { yaml: good.replace(/^id: .*$/m, 'id: from-web') },
      '/workflows/new',
    );
    expect(again.status).toBe(422);
    expect(await again.text()).toContain('a workflow &quot;from-web&quot; already exists');
  });
});

describe("a workflow's page", () => {
  it('shows instructions, actions, threshold, credentials and the YAML; the form edits it', async () => {
    const res = await page.get('/workflows/inbox-triage');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Inbox triage</h1>'.replace('Inbox triage', h.workflow.name));
    expect(html).toContain(h.workflow.instructions.split('\n')[0]!.slice(0, 30).replaceAll("'", '&#39;'));
    expect(html).toMatch(/from Settings/);
    expect(html).toContain('name="yaml"');
    expect(html).toContain('id: inbox-triage');

    const saved = await page.submit(
      '/workflows/inbox-triage',
      {
        name: 'Morning mail',
        instructions: 'Archive newsletters; ask about the rest.',
        trigger: 'schedule',
        schedule: 'cron(0 8 ? * MON-FRI *)',
        confidence_threshold: '0.8',
      },
      '/workflows/inbox-triage',
    );
    expect(saved.status).toBe(303);
    const after = await getWorkflow(h.engine.store, 'inbox-triage');
    expect(after).toMatchObject({
      name: 'Morning mail',
      trigger: { schedule: 'cron(0 8 ? * MON-FRI *)' },
      confidence_threshold: 0.8,
    });
    expect(after.actions).toEqual(h.workflow.actions);
    const shown = await (await page.get('/workflows/inbox-triage?saved=1')).text();
    expect(shown).toContain('weekdays at 08:00 (UTC)');
    expect(shown).toContain('Saved. The next run uses it.');
  });

  it('refuses a bad form with every problem listed (422) and keeps what was typed', async () => {
    const res = await page.submit(
      '/workflows/inbox-triage',
      {
        name: ' ',
        instructions: 'kept text',
        trigger: 'schedule',
        schedule: 'daily',
        confidence_threshold: '3',
      },
      '/workflows/inbox-triage',
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(/<li>name: must not be empty<\/li>/);
    expect(html).toMatch(/<li>trigger\.schedule: [^<]+<\/li>/);
    expect(html).toMatch(/<li>confidence_threshold: must be between 0 and 1[^<]*<\/li>/);
    expect(html).toContain('kept text');
    expect((await getWorkflow(h.engine.store, 'inbox-triage')).name).toBe(h.workflow.name);
  });

  it('saves its YAML, and refuses a YAML that changes the id', async () => {
    const yaml = (await (await page.get('/workflows/inbox-triage')).text()).includes('name="yaml"');
    expect(yaml).toBe(true);
    const { stringify } = await import('yaml');
    const edited = stringify({ ...h.workflow, name: 'From YAML' });
    expect(
      (await page.submit('/workflows/inbox-triage/yaml', { yaml: edited }, '/workflows/inbox-triage')).status,
    ).toBe(303);
    expect((await getWorkflow(h.engine.store, 'inbox-triage')).name).toBe('From YAML');
    const moved = stringify({ ...h.workflow, id: 'elsewhere' });
    const refused = await page.submit(
      '/workflows/inbox-triage/yaml',
      { yaml: moved },
      '/workflows/inbox-triage',
    );
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('use Duplicate');
  });

  it('pauses and resumes, renames, duplicates paused, and deletes only after the confirm step', async () => {
    await saveWorkflow(h.engine.store, { ...h.workflow, trigger: { schedule: 'rate(1 hour)' } });
    expect((await page.submit('/workflows/inbox-triage/pause', {}, '/workflows/inbox-triage')).status).toBe(
      303,
    );
    expect(await isPaused(h.engine.store, 'inbox-triage')).toBe(true);
    expect(await (await page.get('/workflows/inbox-triage')).text()).toMatch(
      /every hour <span class="muted">— paused/,
    );
    await page.submit('/workflows/inbox-triage/resume', {}, '/workflows/inbox-triage');
    expect(await isPaused(h.engine.store, 'inbox-triage')).toBe(false);

    await page.submit('/workflows/inbox-triage/rename', { name: 'Renamed' }, '/workflows/inbox-triage');
    expect((await getWorkflow(h.engine.store, 'inbox-triage')).name).toBe('Renamed');

    const dup = await page.submit('/workflows/inbox-triage/duplicate', {}, '/workflows/inbox-triage');
    expect(dup.headers.get('location')).toMatch(/^\/workflows\/inbox-triage-copy\?duplicated=/);
    expect((await getWorkflow(h.engine.store, 'inbox-triage-copy')).name).toBe('Renamed (copy)');
    expect(await isPaused(h.engine.store, 'inbox-triage-copy')).toBe(true);

    const confirm = await page.get('/workflows/inbox-triage-copy/delete');
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toMatch(/Its\s+past runs, their audit and the rules it learned stay/);
    expect(await getWorkflow(h.engine.store, 'inbox-triage-copy')).toBeTruthy();
    const deleted = await page.submit('/workflows/inbox-triage-copy/delete', {}, '/workflows/inbox-triage');
    expect(deleted.headers.get('location')).toBe('/workflows?deleted=Renamed%20(copy)');
    expect((await listWorkflows(h.engine.store)).map((w) => w.id)).toEqual(['inbox-triage']);
    expect(await h.engine.store.get('schedules', 'inbox-triage-copy')).toBeUndefined();
    expect(changes).toEqual([
      'saved inbox-triage',
      'saved inbox-triage',
      'saved inbox-triage',
      'saved inbox-triage-copy',
      'removed inbox-triage-copy',
    ]);
  });

  it('refuses every change without the CSRF token, and an unknown workflow is the styled 404', async () => {
    expect((await page.post('/workflows/inbox-triage/delete', {})).status).toBe(403);
    expect((await listRunsOf(h.engine.store, 'inbox-triage')).length).toBe(0);
    const missing = await page.get('/workflows/nope');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('There is no workflow &quot;nope&quot;');
  });
});
