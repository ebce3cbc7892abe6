import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { NotFoundError } from '../../shared/errors/index.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { credentialsNeeded, listTemplates, readTemplate } from '../../shared/workflows/templates.ts';
import { runCli } from '../support/cli.ts';

const IDS = ['competitor-watch', 'inbox-triage', 'pr-review', 'receipts-to-ledger', 'support-inbox'];

/** An IMAP mailbox with the placeholders a person replaces. */
const imap = (mailbox: string, user = 'you@example.com', credential = 'MAIL_PASSWORD') => ({
  type: 'imap',
  host: 'imap.example.com',
  port: 993,
  tls: true,
  user,
  credential,
  mailbox,
  auth: 'password', // the default: an (app) password
});
const SOURCES: Record<string, unknown> = {
  'competitor-watch': imap('Competitors'),
  'inbox-triage': imap('INBOX'),
  'pr-review': { type: 'event' },
  'receipts-to-ledger': imap('Receipts'),
  'support-inbox': imap('INBOX', 'support@example.com', 'SUPPORT_MAIL_PASSWORD'),
};

describe('templates', () => {
  it('lists the five templates with name, description and file', async () => {
    const list = await listTemplates();
    expect(list.map((t) => t.id)).toEqual(IDS);
    for (const t of list) {
      expect(t.name).not.toBe('');
      expect(t.description).not.toBe('');
      expect(t.description).not.toContain('\n');
      expect(t.file).toMatch(new RegExp(`/templates/${t.id}\\.yaml$`));
      expect(await readFile(t.file, 'utf8')).toBe(await readTemplate(t.id));
    }
  });

  it.each(IDS)('%s validates against the schema and its id matches the file', async (id) => {
    const w = parseWorkflow(await readTemplate(id), `${id}.yaml`);
    expect(w.id).toBe(id);
    // Pull requests arrive in their webhook; the mail templates read an IMAP mailbox a person fills in.
    expect(w.source).toEqual(SOURCES[id]);
  });

  it('uses the agreed thresholds and marks public posting irreversible', async () => {
    const get = async (id: string) => parseWorkflow(await readTemplate(id), `${id}.yaml`);
    expect((await get('inbox-triage')).confidence_threshold).toBe(0.7);
    expect((await get('competitor-watch')).confidence_threshold).toBe(0.75);
    const pr = await get('pr-review');
    expect(pr.confidence_threshold).toBe(0.8);
    expect(pr.actions.filter((a) => a.irreversible).map((a) => a.name)).toEqual([
      'github__create_and_submit_pull_request_review',
      'github__add_issue_comment',
    ]);
    const watch = await get('competitor-watch');
    expect(watch.actions.filter((a) => a.irreversible).map((a) => a.name)).toEqual(['slack__post_message']);
    const triage = await get('inbox-triage');
    expect(triage.human_gate.options).toEqual(['file_ticket', 'archive', 'draft_reply', 'skip']);
  });

  it.each(IDS)("%s saves: every action is the source's or a built-in integration's", async (id) => {
    const dir = await mkdtemp(join(tmpdir(), 'handoff-templates-'));
    const store = new JsonFileStore(dir);
    await saveWorkflow(store, parseWorkflow(await readTemplate(id), `${id}.yaml`));
    expect(await store.get('workflows', id)).toBeDefined();
    await rm(dir, { recursive: true, force: true });
  });

  it("names the credentials each template needs: its source's and its integrations'", async () => {
    const needs = Object.fromEntries((await listTemplates()).map((t) => [t.id, t.credentials]));
    expect(needs).toEqual({
      'competitor-watch': ['MAIL_PASSWORD', 'SLACK_BOT_TOKEN'],
      'inbox-triage': ['MAIL_PASSWORD'],
      'pr-review': ['GITHUB_TOKEN'],
      'receipts-to-ledger': ['MAIL_PASSWORD'],
      'support-inbox': ['SUPPORT_MAIL_PASSWORD'],
    });
    // Read-only integrations a workflow names count too; an entry needing no key adds none.
    const pr = parseWorkflow(await readTemplate('pr-review'), 'pr-review.yaml');
    expect(credentialsNeeded({ ...pr, integrations: ['linear', 'fetch', 'github'] })).toEqual([
      'LINEAR_API_KEY',
      'GITHUB_TOKEN',
    ]);
  });

  it('shows them in `handoff templates`, as a column and as `credentials` in --json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handoff-templates-cli-'));
    const env = { HANDOFF_STATE_DIR: join(dir, 'state') };
    const plain = await runCli(['templates'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^ID\s+NAME\s+CREDENTIALS\s+DESCRIPTION$/m);
    expect(plain.stdout).toMatch(/^pr-review\s+Pull request review\s+GITHUB_TOKEN\s+/m);
    expect(plain.stdout).toMatch(/^inbox-triage\s+Inbox triage\s+MAIL_PASSWORD\s+/m);
    expect(plain.stdout).toMatch(/^competitor-watch\s+Competitor watch\s+MAIL_PASSWORD, SLACK_BOT_TOKEN\s+/m);
    const json = JSON.parse((await runCli(['templates', '--json'], env)).stdout) as Record<string, unknown>[];
    expect(json.find((t) => t.id === 'competitor-watch')).toEqual({
      id: 'competitor-watch',
      name: 'Competitor watch',
      description: expect.any(String),
      credentials: ['MAIL_PASSWORD', 'SLACK_BOT_TOKEN'],
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses unknown or path-like template ids', async () => {
    await expect(readTemplate('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(readTemplate('../schema')).rejects.toThrow(/available: competitor-watch, inbox-triage/);
  });
});
