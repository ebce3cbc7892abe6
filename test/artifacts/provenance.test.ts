/**
 * Artifacts from real runs, driven as a person does from a terminal (real child processes,
 * the offline model, a Maildir): drafts and tickets carry the run, the item and the decision
 * they came from, every completed run keeps its report, and the competitor-watch template
 * keeps a digest of each run.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';
import { COMPETITOR_MAIL } from '../support/template-mail.ts';

interface Pending {
  decision_id: string;
  item_id: string;
  sender: string;
}
interface ArtifactJson {
  id: string;
  kind: string;
  title: string;
  content_type: string;
  body?: string | null;
  pointer: string | null;
  size: number;
  workflow_id: string;
  run_id: string;
  item_id: string | null;
  decision_id: string | null;
  has_body?: boolean;
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

it('a draft and a ticket a person decided are artifacts of the run, with the item and the decision; the run keeps its report', async () => {
  const ws = await cliWorkspace('handoff-artifacts-', [
    neutral('ana@partnerco.example', 'Statement for the quarter'),
    neutral('tomi@fastmail.example', 'Following up'),
  ]);
  dir = ws.dir;
  const env = { HANDOFF_STATE_DIR: path.join(ws.dir, 'state') };
  await cliJson(['workflows', 'add', ws.workflowFile], env);
  const run = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  expect(run.status).toBe('waiting');
  const pending = await cliJson<Pending[]>(['pending'], env);
  const bySender = new Map(pending.map((p) => [p.sender, p]));
  const drafted = bySender.get('tomi@fastmail.example')!;
  const ticketed = bySender.get('ana@partnerco.example')!;
  await cliJson(['decide', ticketed.decision_id, 'file_ticket'], env);
  await cliJson(
    ['decide', drafted.decision_id, 'draft_reply', '--body', 'Thanks, I will read it Friday.'],
    env,
  );

  const listed = await cliJson<ArtifactJson[]>(['artifacts', '--run', run.run_id], env);
  expect(listed.map((a) => a.kind).sort()).toEqual(['draft', 'report', 'ticket']);
  expect(listed.every((a) => a.id.startsWith(`${run.run_id}.`) && a.workflow_id === 'inbox')).toBe(true);
  expect(listed.every((a) => a.has_body === true && !('body' in a))).toBe(true); // a list carries no bodies

  const draft = listed.find((a) => a.kind === 'draft')!;
  expect(draft).toMatchObject({
    run_id: run.run_id,
    item_id: drafted.item_id,
    decision_id: drafted.decision_id,
    content_type: 'message/rfc822',
    title: 'Re: Following up',
  });
  const shown = await cliJson<ArtifactJson>(['artifacts', 'show', draft.id], env);
  // The artifact is the draft as written: the same bytes as the file in .Drafts.
  expect(shown.pointer).toContain(path.join(ws.maildir, '.Drafts', 'cur'));
  expect(shown.body).toBe(await fs.readFile(shown.pointer!, 'utf8'));
  expect(shown.body).toContain('Thanks, I will read it Friday.');
  expect(shown.size).toBe(Buffer.byteLength(shown.body!, 'utf8'));

  const ticket = listed.find((a) => a.kind === 'ticket')!;
  expect(ticket).toMatchObject({ item_id: ticketed.item_id, decision_id: ticketed.decision_id });
  expect(ticket.pointer).toMatch(/^tickets\/tkt_[0-9a-f]{10}$/);

  const report = listed.find((a) => a.kind === 'report')!;
  expect(report).toMatchObject({ id: `${run.run_id}.report`, item_id: null, decision_id: null });
  const reportBody = (await cliJson<ArtifactJson>(['artifacts', 'show', report.id], env)).body;
  expect(reportBody).toMatch(new RegExp(`^Run ${run.run_id} finished: `));
  // Item by item: what was done to which, by whom, with what came of it.
  expect(reportBody).toContain(
    `Draft reply (1):\n- "Following up" ${drafted.item_id}, decided by you: draft written to ${path.join(ws.maildir, '.Drafts', 'cur')}`,
  );
  expect(reportBody).toMatch(
    new RegExp(
      `File ticket \\(1\\):\\n- "Statement for the quarter" ${ticketed.item_id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, decided by you: ticket tkt_[0-9a-f]+ filed`,
    ),
  );

  // For people: the content after the provenance.
  const text = await runCli(['artifacts', 'show', draft.id], env);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(`decision  ${drafted.decision_id}`);
  expect(text.stdout).toContain('In-Reply-To:');

  const every = await cliJson<ArtifactJson[]>(['artifacts'], env);
  expect(every).toHaveLength(3); // the workspace's: this run's three

  // A page at a time: `--json` stays an array of the page; the next page's command is on stderr.
  const first = await runCli(['artifacts', '--limit', '2', '--json'], env);
  expect(first.code).toBe(0);
  expect((JSON.parse(first.stdout) as ArtifactJson[]).map((a) => a.id)).toEqual(
    every.slice(0, 2).map((a) => a.id),
  );
  const more = /^More: handoff artifacts --limit 2 --cursor (\S+)\n$/.exec(first.stderr);
  expect(more).not.toBeNull();
  const rest = await runCli(['artifacts', '--limit', '2', '--cursor', more![1]!, '--json'], env);
  expect((JSON.parse(rest.stdout) as ArtifactJson[]).map((a) => a.id)).toEqual([every[2]!.id]);
  expect(rest.stderr).toBe('');
  const badCursor = await runCli(['artifacts', '--cursor', 'nonsense'], env);
  expect(badCursor.code).toBe(2);
  expect(badCursor.stderr).toBe('handoff: cursor: not one this list gave; start again without it\n');

  // Bad input: one line, exit 1, nothing changed.
  const unknownRun = await runCli(['artifacts', '--run', 'run_nope'], env);
  expect(unknownRun.code).toBe(1);
  expect(unknownRun.stderr.trim().split('\n')).toHaveLength(1);
  expect(unknownRun.stderr).toMatch(/run_nope/);
  const unknown = await runCli(['artifacts', 'show', 'nope'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toBe('handoff: no artifact "nope" (see `handoff artifacts`)\n');
});

it('the competitor-watch template keeps a digest of its run: what was archived and filed, with the summaries, as Markdown', async () => {
  const ws = await cliWorkspace('handoff-digest-', [...COMPETITOR_MAIL]);
  dir = ws.dir;
  const env = { HANDOFF_STATE_DIR: path.join(ws.dir, 'state') };
  // The template as printed, its IMAP folder swapped for the test's Maildir.
  const template = await runCli(['templates', 'competitor-watch'], env);
  expect(template.code).toBe(0);
  expect(template.stdout).toMatch(/^digest: true/m);
  const yaml = template.stdout.replace(
    /^source:\n(?: {2}.*\n)+/m,
    `source: { type: maildir, path: ${ws.maildir} }\n`,
  );
  const file = path.join(ws.dir, 'competitor-watch.yaml');
  await fs.writeFile(file, yaml);
  await cliJson(['workflows', 'add', file], env);

  const run = await cliJson<{ run_id: string; status: string }>(['run', 'competitor-watch'], env);
  expect(run.status).toBe('waiting');
  const [asked] = await cliJson<Pending[]>(['pending'], env);
  expect(asked!.item_id).toBe('<alert-trackly-pricing@google.example>');
  await cliJson(['decide', asked!.decision_id, 'file_ticket'], env);

  const listed = await cliJson<ArtifactJson[]>(['artifacts', '--run', run.run_id], env);
  expect(listed.map((a) => a.kind).sort()).toEqual(['digest', 'ticket']);
  const digest = await cliJson<ArtifactJson>(['artifacts', 'show', `${run.run_id}.digest`], env);
  expect(digest).toMatchObject({
    kind: 'digest',
    content_type: 'text/markdown; charset=utf-8',
    workflow_id: 'competitor-watch',
    run_id: run.run_id,
    item_id: null,
    decision_id: null,
  });
  expect(digest.title).toMatch(/^Competitor watch: digest of \d{4}-\d{2}-\d{2}$/);
  const body = digest.body!;
  expect(body).toMatch(/^# Competitor watch: digest of \d{4}-\d{2}-\d{2}\n/);
  expect(body).toContain(`Run ${run.run_id} finished:`);
  // Each item under what was done, with who decided and the agent's summary.
  const archived = body.indexOf('## Archive (1)');
  const filed = body.indexOf('## File ticket (1)');
  expect(archived).toBeGreaterThan(0);
  expect(filed).toBeGreaterThan(0);
  expect(body).toMatch(
    /- \*\*Rivalry Weekly #57: this week in project-tracking tools\*\* \(decided by the agent\): \S/,
  );
  expect(body).toMatch(/- \*\*Google Alert - Trackly pricing\*\* \(decided by you\)/);
  const ticket = listed.find((a) => a.kind === 'ticket')!;
  expect(ticket.decision_id).toBe(asked!.decision_id);
});
