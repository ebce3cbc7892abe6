import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { COLLECTIONS } from '../../shared/store/store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { runCli } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';
import { hashTree } from '../support/hash-tree.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';

/** `handoff sources check`: connects, counts, shows the first few items, and acts on nothing. */
let dir: string;
let maildir: string;
let env: Record<string, string>;
let total: number;

const EVENT_WORKFLOW = `id: hooks
name: Webhook items
instructions: File a ticket for each item.
trigger: { webhook: true }
source: { type: event }
actions:
  - { name: file_ticket }
human_gate: { options: [file_ticket, skip] }
`;

/** Every record of every collection in the store. */
async function storeRecords(): Promise<Record<string, unknown[]>> {
  const store = new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default'));
  const all: Record<string, unknown[]> = {};
  for (const collection of COLLECTIONS) all[collection] = await store.list(collection);
  return all;
}

interface CheckJson {
  ok: boolean;
  workflow_id?: string;
  source?: Record<string, unknown>;
  count?: number;
  items?: { id: string; sender: string; subject: string; date: string | null }[];
  note?: string;
  error?: string;
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-sources-check-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  maildir = path.join(dir, 'Maildir');
  total = await createDemoMaildir(maildir);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  await fs.writeFile(
    path.join(dir, 'broken.yaml'),
    workflowYaml(path.join(dir, 'no-such-maildir')).replace(/^id: .*$/m, 'id: broken'),
  );
  await fs.writeFile(path.join(dir, 'hooks.yaml'), EVENT_WORKFLOW);
  for (const file of ['inbox.yaml', 'broken.yaml', 'hooks.yaml'])
    expect((await runCli(['workflows', 'add', path.join(dir, file)], env)).code).toBe(0);
});

describe('handoff sources check', () => {
  it('counts the Maildir and shows the first five items, leaving every file and the store as they were', async () => {
    const filesBefore = await hashTree(maildir);
    const recordsBefore = await storeRecords();
    expect(recordsBefore.workflows!.length).toBeGreaterThan(0); // the store read is the one the CLI writes

    const result = await runCli(['sources', 'check', 'inbox', '--json'], env);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    const check = JSON.parse(result.stdout) as CheckJson;
    expect(check).toMatchObject({
      ok: true,
      workflow_id: 'inbox',
      source: { type: 'maildir', path: maildir },
      count: total,
    });
    expect(check.items).toHaveLength(5);
    for (const item of check.items!) {
      expect(item.id).toMatch(/^<.+>$/);
      expect(item.sender).toContain('@');
      expect(item.subject).not.toBe('');
      expect(item.date).toEqual(expect.any(String));
    }
    expect(await hashTree(maildir)).toEqual(filesBefore);
    expect(await storeRecords()).toEqual(recordsBefore);
  });

  it('prints the count and a table for people, and takes --limit', async () => {
    const plain = await runCli(['sources', 'check', 'inbox', '--limit', '2'], env);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout).toContain(`Source of inbox (maildir): ${total} ${total === 1 ? 'item' : 'items'}`);
    expect(plain.stdout).toMatch(/^ID\s+SENDER\s+SUBJECT\s+DATE$/m);
    expect(plain.stdout).toContain(`… and ${total - 2} more`);
    expect(plain.stdout).toContain('Nothing was acted on.');
    const json = JSON.parse(
      (await runCli(['sources', 'check', 'inbox', '--limit', '2', '--json'], env)).stdout,
    );
    expect((json as CheckJson).items).toHaveLength(2);
  });

  it('says that event items arrive with a webhook, rather than failing', async () => {
    const result = await runCli(['sources', 'check', 'hooks', '--json'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      workflow_id: 'hooks',
      source: { type: 'event' },
      count: 0,
      items: [],
      note: expect.stringContaining('items arrive with a webhook'),
    });
  });

  it('fails with one line, and {"ok":false} under --json, for a source it cannot read', async () => {
    const plain = await runCli(['sources', 'check', 'broken'], env);
    expect(plain.code).toBe(1);
    expect(plain.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/no-such-maildir: not a Maildir/),
    ]);
    const json = await runCli(['sources', 'check', 'broken', '--json'], env);
    expect(json.code).toBe(1);
    expect(json.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: expect.stringContaining('not a Maildir'),
    });
  });

  it('refuses an unknown workflow and a bad --limit with one line and exit 1', async () => {
    const unknown = await runCli(['sources', 'check', 'nope', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^handoff: no workflow "nope"/);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false });
    const limit = await runCli(['sources', 'check', 'inbox', '--limit', 'lots'], env);
    expect(limit.code).toBe(1);
    expect(limit.stderr.trim()).toBe('handoff: --limit lots is not a number of items (1-100)');
  });
});
