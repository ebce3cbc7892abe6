import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { pullRequestItem } from '../../../shared/sources/event/event-items.ts';
import { EventSource } from '../../../shared/sources/event/event-source.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';
import { pullRequestEvent } from '../../support/github-payload.ts';

let dir: string;
let store: JsonFileStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-event-'));
  store = new JsonFileStore(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

describe('a pull request as an item', () => {
  it('is owner/repo#number@head_sha, its text the title, body and diff stats the payload carries', () => {
    const read = pullRequestItem(
      pullRequestEvent({
        number: 5,
        title: 'Add retries',
        body: 'Retries on timeout.',
        sha: 'abcdef1234567',
      }),
    );
    expect(read).toEqual({
      ok: true,
      item: expect.objectContaining({
        id: 'octo-org/widgets#5@abcdef1234567',
        sender: 'dana-dev@users.noreply.github.com',
        subject: 'Add retries',
        hints: ['pull-request'],
        fields: {
          owner: 'octo-org',
          repo: 'widgets',
          number: 5,
          head_sha: 'abcdef1234567',
          url: 'https://github.com/octo-org/widgets/pull/5',
        },
      }),
    });
    const text = read.ok ? read.item.text : '';
    expect(text).toContain('Add retries\n\nRetries on timeout.');
    expect(text).toContain('6 changed files, +120 -30, 1 commits; feature into main');
  });

  it('marks a bot author and a small change as facts, not guesses', () => {
    const read = pullRequestItem(
      pullRequestEvent({
        number: 6,
        title: 'Bump x',
        login: 'dependabot[bot]',
        bot: true,
        changed_files: 1,
        additions: 2,
        deletions: 2,
      }),
    );
    expect(read.ok && read.item.hints).toEqual(['pull-request', 'bot-author', 'small-change']);
  });
});

describe('EventSource', () => {
  const detail = JSON.stringify({
    items: [{ id: 'i-1', subject: 'Broken export', text: 'CSV fails.', sender: 'ana@x.example' }],
  });

  it('lists and reads the items the run stored; a run without them has none', async () => {
    const source = new EventSource(detail);
    expect(await source.listRefs()).toEqual(['i-1']);
    expect(await source.read('i-2')).toEqual({ ok: false, ref: 'i-2', reason: 'not among the event items' });
    expect(await new EventSource(null).listRefs()).toEqual([]);
    expect(await new EventSource('not json').listRefs()).toEqual([]);
  });

  it('files a ticket, and refuses any other action: acting on an item is an integration tool', async () => {
    const source = new EventSource(detail);
    const read = await source.read('i-1');
    if (!read.ok) throw new Error(read.reason);
    const context = { store, workflowId: 'wf', runId: 'run1', note: null, reasoning: null };
    await expect(source.perform('archive', read.item, context)).rejects.toThrow(
      "the event source cannot archive; name an integration's tool (<entry>__<tool>) instead",
    );
    expect(await store.list('tickets')).toEqual([]);
    expect(await source.perform('file_ticket', read.item, context)).toMatch(/^ticket tkt_[0-9a-f]+ filed$/);
    expect(await store.list('tickets')).toEqual([
      expect.objectContaining({ item_id: 'i-1', title: 'Broken export' }),
    ]);
  });
});
