import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { claimOutcomes, outcomeId } from '../../shared/actions/outcomes.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Collection, JsonRecord, Write, WriteResult } from '../../shared/store/store.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';

/** A JSON-file store that remembers every write call it is given (the real store does the work). */
class WatchedStore extends JsonFileStore {
  creates: Collection[] = [];
  commits: Write[][] = [];
  override create<T extends JsonRecord>(collection: Collection, record: T) {
    this.creates.push(collection);
    return super.create(collection, record);
  }
  override commit(writes: readonly Write[]): Promise<WriteResult[]> {
    this.commits.push([...writes]);
    return super.commit(writes);
  }
}

/** Complete commit lines in the store's journal: one per durable write. */
async function journalCommits(stateDir: string): Promise<number> {
  const text = await fs.readFile(path.join(stateDir, '.journal'), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line.startsWith('[')).length;
}

const dirs: string[] = [];
let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

const claim = (itemId: string, runId: string) => ({
  workflow_id: 'inbox',
  item_id: itemId,
  run_id: runId,
  action: 'archive',
  status: 'acting' as const,
});

describe('claiming the items a run holds', () => {
  it('takes over its own holds, leaves another run’s, and claims new items, in one durable write', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-claims-'));
    dirs.push(dir);
    const store = new WatchedStore(dir);
    const hold = (item: string, run: string, status = 'held') =>
      store.create('outcomes', {
        id: outcomeId('inbox', item),
        workflow_id: 'inbox',
        item_id: item,
        run_id: run,
        action: null,
        status,
        at: new Date().toISOString(),
      });
    await hold('mine', 'run_a');
    await hold('theirs', 'run_b');
    await hold('released', 'run_b', 'released');
    store.commits = [];
    const before = await journalCommits(dir);

    const claimed = await claimOutcomes(
      store,
      ['mine', 'theirs', 'released', 'new'].map((item) => claim(item, 'run_a')),
      { heldItems: new Set(['mine', 'theirs', 'released']) },
    );

    expect(claimed.map((c) => c && { status: c.status, version: c.version, run: c.run_id })).toEqual([
      { status: 'acting', version: 2, run: 'run_a' },
      null,
      { status: 'acting', version: 2, run: 'run_a' },
      { status: 'acting', version: 1, run: 'run_a' },
    ]);
    expect(await journalCommits(dir)).toBe(before + 1);
    // No create tried on a held item first: its claim is the update that takes the hold over.
    expect(store.commits).toHaveLength(1);
    expect(store.commits[0]!.map((w) => `${w.kind} ${w.record.item_id as string}`)).toEqual([
      'update mine',
      'update released',
      'create new',
    ]);
    expect((await store.get('outcomes', outcomeId('inbox', 'theirs')))?.run_id).toBe('run_b');
  });

  it('leaves an item named as held that another run took over meanwhile to that run', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-claims-'));
    dirs.push(dir);
    const store = new WatchedStore(dir);
    await store.create('outcomes', {
      id: outcomeId('inbox', 'gone'),
      workflow_id: 'inbox',
      item_id: 'gone',
      run_id: 'run_b',
      action: 'archive',
      status: 'acting',
      at: new Date().toISOString(),
    });
    const [claimed] = await claimOutcomes(store, [claim('gone', 'run_a')], { heldItems: new Set(['gone']) });
    expect(claimed).toBeNull();
    expect((await store.get('outcomes', outcomeId('inbox', 'gone')))?.status).toBe('acting');
    expect(store.commits.flat()).toEqual([]); // nothing written: it was never ours
  });
});

describe('answers file their tickets', () => {
  // Answers take effect as they arrive (issue 29): each answer but the last files its ticket
  // itself, the last one's resume files the last; each in one record write.
  it('each in its record write, with its audit entry, artifact and settled claim', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-tickets-'));
    dirs.push(dir);
    const store = new WatchedStore(path.join(dir, 'state'));
    const propose = executorScript(() => ({
      action: 'file_ticket',
      confidence: 0.3,
      reasoning: 'cannot tell',
    }));
    fixture = await engineFixture({
      messages: ['a@x.example', 'b@y.example', 'c@z.example'].map((from, i) =>
        mail({ from, subject: `Bug ${i}` }),
      ),
      model: () => new ScriptedModel(propose),
      store,
    });
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    const pending = await listPending(store);
    expect(pending).toHaveLength(3);
    store.creates = [];
    store.commits = [];
    let status = '';
    for (const d of pending) status = (await decide(fixture.deps, d.id, 'file_ticket', null)).run_status;
    expect(status).toBe('completed');

    const tickets = await store.list('tickets');
    expect(tickets).toHaveLength(3);
    expect(store.creates).not.toContain('tickets');
    const audit = (await listAudit(store)).filter((e) => e.run_id === run.id && e.item_id !== null);
    expect(audit.map((e) => e.outcome)).toEqual(['acted', 'acted', 'acted']);
    for (const ticket of tickets) {
      expect(audit.find((e) => e.detail === `ticket ${ticket.id} filed`)?.item_id).toBe(ticket.item_id);
      // The ticket, its artifact, its audit entry and its settled claim land in the same durable write.
      const recordWrite = store.commits.find((c) =>
        c.some((w) => w.collection === 'tickets' && w.record.item_id === ticket.item_id),
      )!;
      const inRecord = recordWrite
        .filter((w) => w.record.item_id === ticket.item_id)
        .map((w) => w.collection);
      expect(inRecord.sort()).toEqual(['artifacts', 'audit', 'outcomes', 'tickets']);
    }
    // Each item's hold was taken over by its claim (an update of the hold, never a create first).
    const claims = store.commits.filter((c) =>
      c.some((w) => w.collection === 'outcomes' && w.record.status === 'acting'),
    );
    expect(claims).toHaveLength(3);
    expect(claims.flat().every((w) => w.kind === 'update')).toBe(true);
  });
});

describe('a resume reads again only the items whose action needs their content', () => {
  it('records a skip and carries out a move from the question alone; a draft of a gone message is refused', async () => {
    const propose = executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'cannot tell' }));
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'Skip me' }),
        mail({ from: 'b@y.example', subject: 'Archive me' }),
        mail({ from: 'c@z.example', subject: 'Draft me' }),
      ],
      model: () => new ScriptedModel(propose),
    });
    const { deps, store } = fixture;
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    const pending = await listPending(store);
    const held = await store.list('outcomes');
    expect(held.every((o) => o.status === 'held' && typeof o.fingerprint === 'string')).toBe(true);
    const [skip, archive, draft] = ['Skip me', 'Archive me', 'Draft me'].map((subject) =>
      pending.find((d) => d.subject === subject)!,
    );
    // The messages to skip and to draft leave the Maildir while the run waits (read, filed by hand).
    for (const sub of ['new', 'cur'])
      for (const name of await fs.readdir(path.join(fixture.maildir, sub))) {
        const text = await fs.readFile(path.join(fixture.maildir, sub, name), 'utf8');
        if (!text.includes('Archive me')) await fs.rm(path.join(fixture.maildir, sub, name));
      }
    await decide(deps, skip!.id, 'skip', null);
    await decide(deps, archive!.id, 'archive', null);
    expect((await decide(deps, draft!.id, 'draft_reply', null)).run_status).toBe('completed');

    const audit = (await listAudit(store)).filter((e) => e.run_id === run.id && e.item_id !== null);
    const entryOf = (d: typeof skip) => audit.find((e) => e.item_id === d!.item_id);
    expect(entryOf(skip)).toEqual(
      expect.objectContaining({ outcome: 'declined', subject: 'Skip me', detail: 'skipped; nothing done' }),
    );
    expect(entryOf(archive)).toEqual(expect.objectContaining({ outcome: 'acted', subject: 'Archive me' }));
    expect(await fixture.folder('.Archive')).toHaveLength(1);
    expect(entryOf(draft)).toEqual(
      expect.objectContaining({
        outcome: 'failed',
        detail: expect.stringMatching(/^gone: .* is no longer in the source .*; nothing was done$/),
      }),
    );
    expect(await fixture.folder('.Drafts')).toEqual([]);
    const skipped = await store.get('outcomes', outcomeId('inbox', skip!.item_id));
    const before = held.find((o) => o.item_id === skip!.item_id)!;
    expect(skipped).toEqual(expect.objectContaining({ status: 'declined', fingerprint: before.fingerprint }));
  });

  it('refuses a move of a message gone while the run waited: nothing is done, the audit says so', async () => {
    const propose = executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'cannot tell' }));
    fixture = await engineFixture({
      messages: [mail({ from: 'b@y.example', subject: 'Archive me' })],
      model: () => new ScriptedModel(propose),
    });
    const { deps, store } = fixture;
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    const [archive] = await listPending(store);
    for (const sub of ['new', 'cur'])
      for (const name of await fs.readdir(path.join(fixture.maildir, sub)))
        await fs.rm(path.join(fixture.maildir, sub, name));
    expect((await decide(deps, archive!.id, 'archive', null)).run_status).toBe('completed');

    const [entry] = (await listAudit(store)).filter((e) => e.run_id === run.id && e.item_id !== null);
    expect(entry).toEqual(expect.objectContaining({ outcome: 'failed', action: 'archive' }));
    expect(entry!.detail).toMatch(/^gone: .*message not found; nothing done$/);
    expect(await fixture.folder('.Archive')).toEqual([]);
  });
});

it('a resume killed after acting and before recording leaves no ticket, and its claim fails, never acts again', async () => {
  const { dir, workflowFile } = await cliWorkspace('handoff-crash-performed-', [
    mail({ from: 'jo@synergia.example', subject: 'Strategic partnership opportunity' }),
    mail({ from: 'tomi@fastmail.example', subject: 'Following up' }),
  ]);
  dirs.push(dir);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  const run = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  expect(run.status).toBe('waiting');
  const pending = await cliJson<{ decision_id: string; item_id: string }[]>(['pending'], env);
  expect(pending.length).toBeGreaterThanOrEqual(1);
  // The answers before the last are carried out as they arrive (issue 29); the last resumes the run.
  for (const p of pending.slice(0, -1)) await cliJson(['decide', p.decision_id, 'file_ticket'], env);
  const last = pending.at(-1)!.decision_id;
  const killed = await runCli(['decide', last, 'file_ticket'], {
    ...env,
    HANDOFF_CRASH_AT: 'carry-out:performed',
  });
  expect(killed.signal).toBe('SIGKILL');

  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env); // notices the dead run
  expect(runs.find((r) => r.run_id === run.run_id)?.status).toBe('failed');
  await cliJson(['run', 'inbox'], env);
  const audit = await cliJson<{ run_id: string; item_id: string | null; outcome: string }[]>(['audit'], env);
  const entries = audit.filter((e) => e.item_id !== null && e.run_id === run.run_id);
  expect(entries).toHaveLength(pending.length);
  const killedItem = pending.at(-1)!.item_id;
  // The resume's item: failed, for a person to check, and no ticket; the earlier ones were filed once each.
  expect(entries.filter((e) => e.item_id === killedItem).map((e) => e.outcome)).toEqual(['failed']);
  expect(entries.filter((e) => e.item_id !== killedItem).every((e) => e.outcome === 'acted')).toBe(true);
  const tickets = await new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR, 'default')).list('tickets');
  expect(tickets.map((t) => t.item_id).sort()).toEqual(
    pending
      .slice(0, -1)
      .map((p) => p.item_id)
      .sort(),
  );
});
