import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InvalidInputError, NotFoundError } from '../../../shared/errors/index.ts';
import { archive, deleteMessage, draftReply } from '../../../shared/sources/maildir/actions.ts';
import { fileTicket } from '../../../shared/sources/tickets.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../../shared/sources/maildir/demo.ts';
import { writeMaildir, type MessageSpec } from '../../../shared/sources/maildir/generate.ts';
import { listMailFiles, readMailItem, type MailItem } from '../../../shared/sources/maildir/maildir.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';
import { parseWorkflow } from '../../../shared/workflows/load.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'handoff-actions-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const msg = (over: Partial<MessageSpec> = {}): MessageSpec => ({
  from: 'priya@northwind.example',
  fromName: 'Priya Sharma',
  to: 'alex@northwind.example',
  subject: 'Review PR #482?',
  body: 'Could you review it before Thursday?\n\nPriya',
  date: new Date('2025-03-10T10:05:00Z'),
  messageId: '<pr482@northwind.example>',
  ...over,
});

async function item(file: string): Promise<MailItem> {
  const r = await readMailItem(file);
  if (!r.ok) throw new Error(r.reason);
  return r.item;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

describe('maildir actions', () => {
  it('archive moves a new message to .Archive/cur with the Seen flag', async () => {
    const [file = ''] = await writeMaildir(root, [msg()]);
    const r = await archive(root, file);
    expect(r.moved_to).toBe(join(root, '.Archive', 'cur', `${basename(file)}:2,S`));
    expect(await exists(file)).toBe(false);
    expect(await listMailFiles(root)).toEqual([]);
    for (const sub of ['new', 'cur', 'tmp']) expect(await exists(join(root, '.Archive', sub))).toBe(true);
    expect((await item(r.moved_to)).id).toBe('<pr482@northwind.example>');
  });

  it('archive keeps the flags of a message already in cur/', async () => {
    const [file = ''] = await writeMaildir(root, [msg()]);
    const seen = await archive(root, file);
    // Put it back into cur/ with flags, then archive again: flags stay as they are.
    const { rename } = await import('node:fs/promises');
    const inCur = join(root, 'cur', `${basename(file)}:2,FS`);
    await rename(seen.moved_to, inCur);
    const again = await archive(root, inCur);
    expect(again.moved_to).toBe(join(root, '.Archive', 'cur', `${basename(file)}:2,FS`));
  });

  it('deleteMessage moves to .Trash/cur; a second move of the same file is NotFound', async () => {
    const [a = '', b = ''] = await writeMaildir(root, [msg(), msg({ messageId: '<b@x.example>' })]);
    const r = await deleteMessage(root, a);
    expect(r.moved_to).toBe(join(root, '.Trash', 'cur', `${basename(a)}:2,S`));
    expect(await listMailFiles(root)).toEqual([b]);
    await expect(deleteMessage(root, a)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to move files outside <root>/new and <root>/cur', async () => {
    const [file = ''] = await writeMaildir(root, [msg()]);
    const { moved_to } = await archive(root, file);
    await expect(deleteMessage(root, moved_to)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(archive(root, '/etc/passwd')).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('draftReply writes a reply that parses back with threading headers', async () => {
    const [file = ''] = await writeMaildir(root, [
      msg({ headers: { References: '<earlier@northwind.example>' } }),
    ]);
    const original = await item(file);
    const r = await draftReply(root, original, 'Sure, I will look at it tomorrow.');
    expect(r.draft_path).toMatch(/\/\.Drafts\/cur\/[^/]+:2,D$/);
    expect(await readdir(join(root, '.Drafts', 'tmp'))).toEqual([]);
    const raw = await readFile(r.draft_path);
    const parsed = await simpleParser(raw);
    expect(parsed.inReplyTo).toBe('<pr482@northwind.example>');
    expect(parsed.references).toEqual(['<earlier@northwind.example>', '<pr482@northwind.example>']);
    expect(parsed.to).toMatchObject({
      value: [{ address: 'priya@northwind.example', name: 'Priya Sharma' }],
    });
    expect(parsed.from?.value[0]?.address).toBe('alex@northwind.example');
    expect(parsed.subject).toBe('Re: Review PR #482?');
    expect(parsed.messageId).toBe(r.message_id);
    expect(parsed.headers.get('content-type')).toMatchObject({
      value: 'text/plain',
      params: { charset: 'utf-8' },
    });
    expect(parsed.text).toContain('Sure, I will look at it tomorrow.');
    expect(parsed.text).toContain('> Could you review it before Thursday?');
    expect(raw.toString('latin1')).toMatch(/^MIME-Version: 1\.0\r$/m);
    // The draft is itself a readable item in the Drafts maildir.
    expect((await item(r.draft_path)).inReplyTo).toBe('<pr482@northwind.example>');
  });

  it('draftReply does not double "Re:" and honours fromAddress', async () => {
    const [file = ''] = await writeMaildir(root, [msg({ subject: 'RE: Review PR #482?' })]);
    const r = await draftReply(root, await item(file), 'ok', 'bot@handoff.example');
    const parsed = await simpleParser(await readFile(r.draft_path));
    expect(parsed.subject).toBe('RE: Review PR #482?');
    expect(parsed.from?.value[0]?.address).toBe('bot@handoff.example');
  });

  it('fileTicket creates a ticket record in the store', async () => {
    const store = new JsonFileStore(join(root, 'state'));
    const t = await fileTicket(store, {
      workflowId: 'inbox-triage',
      runId: 'run_1',
      itemId: '<bug@x.example>',
      title: '  CSV export\n fails  ',
      body: 'Stack trace...',
    });
    expect(t.id).toMatch(/^tkt_[0-9a-f]{10}$/);
    expect(t).toMatchObject({
      workflow_id: 'inbox-triage',
      run_id: 'run_1',
      item_id: '<bug@x.example>',
      title: 'CSV export fails',
      body: 'Stack trace...',
      version: 1,
    });
    expect(Date.parse(t.created_at)).not.toBeNaN();
    expect(await store.get('tickets', t.id)).toMatchObject({ title: 'CSV export fails' });
    await expect(
      fileTicket(store, { ...t, workflowId: 'w', runId: 'r', itemId: 'i', title: ' ' }),
    ).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe('demo maildir', () => {
  it('writes 12 parseable messages covering the triage categories', async () => {
    expect(await createDemoMaildir(root)).toBe(12);
    const files = await listMailFiles(root);
    expect(files).toHaveLength(12);
    const items = await Promise.all(files.map(item));
    expect(new Set(items.map((i) => i.id)).size).toBe(12);
    expect(items.filter((i) => i.listUnsubscribe)).toHaveLength(3);
    expect(items.every((i) => i.date !== null && i.messageId !== null && i.text.length > 50)).toBe(true);
    expect(items.map((i) => i.subject)).toContain('Action required: your password expires in 24 hours');
    expect(items.filter((i) => i.from.address.endsWith('@northwind.example'))).toHaveLength(2);
  });

  it('has fixed content: two demo inboxes hold the same messages', async () => {
    await createDemoMaildir(join(root, 'a'));
    await createDemoMaildir(join(root, 'b'));
    const read = async (d: string) =>
      (await Promise.all((await listMailFiles(d)).map(item))).map(({ file: _f, ...rest }) => rest);
    expect(await read(join(root, 'a'))).toEqual(await read(join(root, 'b')));
  });

  it('demoWorkflowYaml is a valid inbox-triage workflow pointing at the path', () => {
    const w = parseWorkflow(demoWorkflowYaml('/tmp/demo inbox/Maildir'), 'demo.yaml');
    expect(w).toMatchObject({ id: 'inbox-triage', name: 'Inbox triage', trigger: { manual: true } });
    expect(w.source).toEqual({ type: 'maildir', path: '/tmp/demo inbox/Maildir' });
    expect(w.confidence_threshold).toBe(0.7);
  });
});
