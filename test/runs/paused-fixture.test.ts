import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { GRAPH_SCHEMA_VERSION } from '../../shared/runs/graph-state.ts';
import { expireDue } from '../../shared/runs/housekeeping.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { resumeIfReady } from '../../shared/runs/run-loop.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript, type ItemView } from '../support/scripted-model.ts';

// A run paused by the build that wrote graph state v1, exactly as it stored it (the temp
// directory it ran in is written $FIXTURE_DIR; the questions' deadline is moved to 2099).
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'paused-v1');
const RUN_ID = 'run_0mx4vyx09_9b58ad';

// The same proposals the paused run was made with (the scripted model is stateless across a restore).
const proposals: Record<string, Record<string, unknown>> = {
  'Weekly digest': { action: 'archive', confidence: 0.9, reasoning: 'a newsletter' },
  Partnership: { action: 'archive', confidence: 0.4, reasoning: 'cannot tell if it is a lead' },
  'Purge request': { action: 'delete', confidence: 0.99, reasoning: 'asks to be deleted' },
};
const propose = (item: ItemView) => proposals[Object.keys(proposals).find((k) => item.subject.includes(k))!]!;

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** A fresh engine whose store and Maildir are the committed paused run's. */
async function loadPausedRun(): Promise<EngineFixture> {
  const engine = await engineFixture({
    messages: [],
    model: () => new ScriptedModel(executorScript(propose)),
  });
  await fs.cp(FIXTURE, engine.dir, { recursive: true, force: true });
  for (const entry of await fs.readdir(path.join(engine.dir, 'state'), { recursive: true })) {
    const file = path.join(engine.dir, 'state', entry);
    if (!file.endsWith('.json')) continue;
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, text.replaceAll('$FIXTURE_DIR', engine.dir));
  }
  return engine;
}

/** Every stored record, to show a refusal changed nothing. */
async function storedState(engine: EngineFixture): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  const root = path.join(engine.dir, 'state');
  for (const entry of await fs.readdir(root, { recursive: true })) {
    const file = path.join(root, entry);
    if ((await fs.stat(file)).isFile()) state[entry] = await fs.readFile(file, 'utf8');
  }
  return state;
}

describe('a run paused by an earlier build', () => {
  it('resumes a run paused in graph state v1 to completion with the person’s answers', async () => {
    fixture = await loadPausedRun();
    expect(GRAPH_SCHEMA_VERSION).toBe(1);
    expect(await getRun(fixture.store, RUN_ID)).toMatchObject({
      status: 'waiting',
      snapshot: { schemaVersion: 1 },
    });
    const pending = await listPending(fixture.store);
    expect(pending.map((d) => d.subject).sort()).toEqual(['Partnership', 'Purge request']);

    await decide(
      fixture.deps,
      pending.find((d) => d.subject === 'Partnership')!.id,
      'archive',
      'a lead after all',
    );
    const last = await decide(
      fixture.deps,
      pending.find((d) => d.subject === 'Purge request')!.id,
      'skip',
      null,
    );

    expect(last.run_status).toBe('completed');
    const run = await getRun(fixture.store, RUN_ID);
    expect(run).toMatchObject({ status: 'completed', snapshot: null, owner: null });
    expect(run.counts).toMatchObject({ acted: 2, confident: 1, by_you: 1, deferred: 2, declined: 1 });
    expect(await fixture.folder('.Archive')).toHaveLength(2);
    expect(await fixture.inbox()).toHaveLength(1); // the purge request was skipped: nothing done to it
  });

  it('refuses a paused graph of an unknown version with one line, and changes nothing', async () => {
    fixture = await loadPausedRun();
    const runFile = path.join(fixture.dir, 'state', 'runs', `${RUN_ID}.json`);
    const stored = JSON.parse(await fs.readFile(runFile, 'utf8'));
    stored.snapshot.schemaVersion = 99;
    await fs.writeFile(runFile, JSON.stringify(stored, null, 2));
    const [first] = await listPending(fixture.store); // indexes the copied-in records (by-status/)
    const before = await storedState(fixture);

    const refused = decide(fixture.deps, first!.id, 'archive', null);
    await expect(refused).rejects.toThrow(
      `run ${RUN_ID} was paused by a build that wrote graph state v99; this build reads v1`,
    );
    await expect(refused).rejects.toMatchObject({ name: 'UnreadableSnapshotError' });
    await expect(resumeIfReady(fixture.deps, RUN_ID)).resolves.toMatchObject({ status: 'waiting' });
    expect(await storedState(fixture)).toEqual(before);
    expect(await fixture.inbox()).toHaveLength(2);
  });

  it('leaves an unreadable run waiting when its questions expire, and housekeeping goes on', async () => {
    fixture = await loadPausedRun();
    const runFile = path.join(fixture.dir, 'state', 'runs', `${RUN_ID}.json`);
    const stored = JSON.parse(await fs.readFile(runFile, 'utf8'));
    stored.snapshot.schemaVersion = 99;
    await fs.writeFile(runFile, JSON.stringify(stored, null, 2));

    expect(await expireDue(fixture.deps, new Date('2099-01-02T00:00:00Z'))).toBe(2);
    expect(await getRun(fixture.store, RUN_ID)).toMatchObject({
      status: 'waiting',
      snapshot: { schemaVersion: 99 },
    });
    await expect(resumeIfReady(fixture.deps, RUN_ID)).rejects.toThrow(/graph state v99; this build reads v1/);
    expect(await fixture.inbox()).toHaveLength(2);
  });
});
