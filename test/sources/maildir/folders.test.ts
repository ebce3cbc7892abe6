import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { NotFoundError } from '../../../shared/errors/index.ts';
import { archive, MaildirFolders } from '../../../shared/sources/maildir/actions.ts';
import { writeMaildir, type MessageSpec } from '../../../shared/sources/maildir/generate.ts';
import { MaildirSource } from '../../../shared/sources/maildir/maildir-source.ts';
import type { ActionContext, SourceItem } from '../../../shared/sources/source.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';

let root: string;
let context: ActionContext;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'handoff-folders-'));
  const store = new JsonFileStore(join(root, 'state'));
  context = { store, workflowId: 'wf', runId: 'run-1', note: null, reasoning: null };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const msg = (n: number): MessageSpec => ({
  from: `sender${n}@vendor.example`,
  to: 'alex@northwind.example',
  subject: `Message ${n}`,
  body: `Body ${n}`,
  date: new Date('2025-03-10T10:05:00Z'),
  messageId: `<m${n}@vendor.example>`,
});

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function itemsOf(source: MaildirSource): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for (const ref of await source.listRefs()) {
    const read = await source.read(ref);
    if (!read.ok) throw new Error(read.reason);
    items.push(read.item);
  }
  return items;
}

describe('maildir target folders', () => {
  it('are made once per source, not before every action', async () => {
    // Prepare
    await writeMaildir(join(root, 'inbox'), [msg(1), msg(2), msg(3)]);
    const source = new MaildirSource(join(root, 'inbox'));
    const [a, b, c] = await itemsOf(source);
    // Act: the first archive makes .Archive; its tmp/ (which a move never uses) is then removed
    await source.perform('archive', a!, context);
    await rm(join(root, 'inbox', '.Archive', 'tmp'), { recursive: true });
    await source.perform('archive', b!, context);
    await source.perform('draft_reply', c!, context);
    await source.perform('draft_reply', c!, context);
    // Assess: no second mkdir of .Archive; .Drafts made once, two drafts in it
    expect(await exists(join(root, 'inbox', '.Archive', 'tmp'))).toBe(false);
    expect(await readdir(join(root, 'inbox', '.Archive', 'cur'))).toHaveLength(2);
    expect(await readdir(join(root, 'inbox', '.Drafts', 'cur'))).toHaveLength(2);
  });

  it('are made again when removed under a running run', async () => {
    // Prepare
    await writeMaildir(join(root, 'inbox'), [msg(1), msg(2), msg(3), msg(4)]);
    const source = new MaildirSource(join(root, 'inbox'));
    const [a, b, c, d] = await itemsOf(source);
    await source.perform('archive', a!, context);
    await source.perform('delete', b!, context);
    await source.perform('draft_reply', a!, context);
    // Act: someone removes the folders while the run goes on
    for (const folder of ['.Archive', '.Trash', '.Drafts']) {
      await rm(join(root, 'inbox', folder), { recursive: true });
    }
    const archived = await source.perform('archive', c!, context);
    const trashed = await source.perform('delete', d!, context);
    const drafted = await source.perform('draft_reply', c!, context);
    // Assess
    expect(archived).toContain(join(root, 'inbox', '.Archive', 'cur'));
    expect(trashed).toContain(join(root, 'inbox', '.Trash', 'cur'));
    expect(drafted).toContain(join(root, 'inbox', '.Drafts', 'cur'));
    expect(await readdir(join(root, 'inbox', '.Archive', 'cur'))).toHaveLength(1);
    expect(await readdir(join(root, 'inbox', '.Trash', 'cur'))).toHaveLength(1);
    expect(await readdir(join(root, 'inbox', '.Drafts', 'cur'))).toHaveLength(1);
    expect(await source.listRefs()).toEqual([]);
  });

  it('still say a message already moved is not found, and make nothing for it', async () => {
    const [file = ''] = await writeMaildir(root, [msg(1)]);
    const folders = new MaildirFolders();
    await archive(root, file, folders);
    await rm(join(root, '.Archive'), { recursive: true });
    await expect(archive(root, file, folders)).rejects.toBeInstanceOf(NotFoundError);
    expect(await exists(join(root, '.Archive'))).toBe(false);
  });
});
