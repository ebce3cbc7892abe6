import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { cliJson, runCli } from '../support/cli.ts';

const keys = (value: object) => Object.keys(value).sort();

it('a new user adds a workflow, runs it, answers its questions and reads the record', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-cli-'));
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const maildir = path.join(dir, 'Maildir');
  await createDemoMaildir(maildir);

  // Templates: five, the inbox one printable as a starting point.
  const templates = await cliJson<{ id: string }[]>(['templates'], env);
  expect(templates.map((t) => t.id)).toEqual(
    expect.arrayContaining(['inbox-triage', 'pr-review', 'competitor-watch']),
  );
  expect(templates).toHaveLength(5);
  const template = await runCli(['templates', 'inbox-triage'], env);
  // The template reads an IMAP mailbox; this newcomer points it at the demo Maildir instead.
  const yaml = template.stdout.replace(
    /^source:\n(?: {2}.*\n)+/m,
    `source: { type: maildir, path: ${maildir} }\n`,
  );
  await fs.writeFile(path.join(dir, 'inbox.yaml'), yaml);

  // A bad file is refused with one line naming the file and the field; nothing is saved.
  await fs.writeFile(
    path.join(dir, 'bad.yaml'),
    yaml.replace(/^id: .*$/m, 'id: bad').replace(/^confidence_threshold: .*$/m, 'confidence_threshold: 1.5'),
  );
  const refused = await runCli(['workflows', 'add', path.join(dir, 'bad.yaml')], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  expect(refused.stderr).toMatch(/bad\.yaml.*confidence_threshold/);
  expect(await cliJson(['workflows'], env)).toEqual([]);

  const added = await cliJson<{ id: string }>(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
  expect(added).toEqual({ id: 'inbox-triage' });
  const workflows = await cliJson<object[]>(['workflows'], env);
  expect(workflows.map(keys)).toEqual([['id', 'name', 'trigger']]);

  // A rule you set is applied first.
  const refusedRule = await runCli(['rules', 'add', '--keywords', 'invoice', '--action', 'archive'], env);
  expect(refusedRule.code).not.toBe(0);
  const rule = await cliJson<{ id: string; source: string }>(
    ['rules', 'add', '--domain', 'infraweekly.example', '--action', 'archive', '--note', 'newsletters'],
    env,
  );
  expect(rule.source).toBe('you');
  const rules = await cliJson<object[]>(['rules'], env);
  expect(rules.map(keys)[0]).toEqual(
    expect.arrayContaining(['id', 'match', 'action', 'source', 'note', 'created_at']),
  );

  const run = await cliJson<Record<string, unknown>>(['run', 'inbox-triage'], env);
  expect(keys(run)).toEqual(['acted', 'by_memory', 'counts', 'deferred', 'interrupt_id', 'run_id', 'status']);
  expect(run).toMatchObject({ status: 'waiting', by_memory: 1 });
  expect(run.deferred).toBeGreaterThan(0);

  const pending = await cliJson<{ decision_id: string; options: string[] }[]>(['pending'], env);
  expect(pending).toHaveLength(run.deferred as number);
  expect(keys(pending[0]!)).toEqual(
    [
      'confidence',
      'decision_id',
      'drafts', // its options draft a reply and a ticket: their words, shown before answering
      'interrupt_id',
      'item_id',
      'options',
      'reasoning',
      'run_id',
      'sender',
      'subject',
      'suggested_action',
      'workflow_id',
    ].sort(),
  );

  const badAnswer = await runCli(['decide', pending[0]!.decision_id, 'launch_rockets'], env);
  expect(badAnswer.code).not.toBe(0);
  expect(badAnswer.stderr).toMatch(/not an option/);

  // Said for people, the answer is named by what was done.
  const [first, ...rest] = pending;
  const said = await runCli(['decide', first!.decision_id, 'skip', '--note', 'leave it'], env);
  expect(said.stdout).toContain(`Recorded for ${first!.decision_id}: Left alone.`);
  let last: Record<string, unknown> = {};
  for (const p of rest)
    [last = {}] = await cliJson<Record<string, unknown>[]>(
      ['decide', p.decision_id, 'skip', '--note', 'leave it'],
      env,
    );
  // One result per answer (issue 29): what it did, what it taught, where its run got to.
  expect(keys(last)).toEqual(['action', 'id', 'learned', 'learned_rule', 'ok', 'run_id', 'run_status']);
  expect(last).toMatchObject({ ok: true, run_id: run.run_id, run_status: 'completed' });
  const again = await runCli(['decide', pending[0]!.decision_id, 'archive'], env);
  expect(again.code).not.toBe(0);

  const audit = await cliJson<Record<string, unknown>[]>(['audit', '--run', run.run_id as string], env);
  expect(keys(audit[0]!)).toEqual([
    'action',
    'at',
    'confidence',
    'decided_by',
    'item_id',
    'note',
    'outcome',
    'run_id',
  ]);
  expect(audit.filter((e) => e.outcome === 'declined')).toHaveLength(pending.length);
  expect(audit.filter((e) => e.decided_by === 'memory')).toHaveLength(1);

  const runs = await cliJson<Record<string, unknown>[]>(['runs'], env);
  expect(runs.map(keys)).toEqual([['finished_at', 'run_id', 'started_at', 'status', 'workflow_id']]);

  expect((await runCli(['rules', 'delete', rule.id], env)).code).toBe(0);
  const left = await cliJson<{ id: string; source: string }[]>(['rules'], env);
  expect(left.map((r) => r.id)).not.toContain(rule.id);
  expect(left.every((r) => r.source === 'learned')).toBe(true); // what the answers taught stays
  await fs.rm(dir, { recursive: true, force: true });
});
