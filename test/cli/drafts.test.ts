/**
 * From a terminal: `handoff pending --show ID` prints the draft each action would use, and
 * `handoff decide` takes the person's own words with `--body` or `--body-file` (real child
 * processes, the offline model, a Maildir).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';
import { OFFLINE_DRAFT_MARK } from '../../shared/models/offline/reply.ts';

interface Pending {
  decision_id: string;
  item_id: string;
  subject: string;
  drafts?: { action: string; title: string | null; body: string; by: string }[];
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  dir = undefined;
});

it('shows a question’s drafts in full, and saves the reply given with --body-file, never the note', async () => {
  const ws = await cliWorkspace('handoff-cli-drafts-', [
    mail({
      from: 'tomi@fastmail.example',
      fromName: 'Tomi Okafor',
      subject: 'Renewal terms',
      body: 'Hello,\n\nCould you send the renewal terms by Friday?\n',
    }),
  ]);
  dir = ws.dir;
  const env = { HANDOFF_STATE_DIR: path.join(ws.dir, 'state') };
  await cliJson(['workflows', 'add', ws.workflowFile], env);
  expect((await cliJson<{ status: string }>(['run', 'inbox'], env)).status).toBe('waiting');
  const [question] = await cliJson<Pending[]>(['pending'], env);
  const reply = question!.drafts!.find((d) => d.action === 'draft_reply')!;
  expect(reply.by).toBe('offline');

  const shown = await runCli(['pending', '--show', question!.decision_id], env);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('--- draft_reply (offline draft, written without a language model) ---');
  expect(shown.stdout).toContain(reply.body);
  expect(shown.stdout).toContain(OFFLINE_DRAFT_MARK);
  expect(shown.stdout).toContain('--- file_ticket (by template) ---');
  expect(shown.stdout).toContain('--body TEXT | --body-file FILE');

  const both = await runCli(
    ['decide', question!.decision_id, 'draft_reply', '--body', 'a', '--body-file', 'b'],
    env,
  );
  expect(both.code).toBe(1);
  expect(both.stderr).toMatch(/--body or --body-file, not both/);
  const missing = await runCli(
    ['decide', question!.decision_id, 'draft_reply', '--body-file', '/nope/reply.txt'],
    env,
  );
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/cannot read --body-file \/nope\/reply.txt/);

  const file = path.join(ws.dir, 'reply.txt');
  await fs.writeFile(file, 'Hi Tomi,\n\nThe terms are attached.\n\nAna\n');
  const decided = await runCli(
    ['decide', question!.decision_id, 'draft_reply', '--note', 'always reply to Tomi', '--body-file', file],
    env,
  );
  expect({ code: decided.code, stderr: decided.stderr }).toMatchObject({ code: 0 });

  const drafts = path.join(ws.maildir, '.Drafts', 'cur');
  const [name] = await fs.readdir(drafts);
  const raw = await fs.readFile(path.join(drafts, name!), 'utf8');
  const parsed = await simpleParser(raw);
  expect(parsed.text!.replace(/\r\n/g, '\n').split(/\n\nOn .+ wrote:\n/)[0]).toBe(
    'Hi Tomi,\n\nThe terms are attached.\n\nAna',
  );
  expect(raw).not.toContain('always reply to Tomi');
});
