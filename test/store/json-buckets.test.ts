/**
 * The JSON-file store keeps a record whose id carries its run's key in that run's folder, so a
 * read by the run's key lists one small folder. A store an earlier build wrote (keyed questions
 * in the flat folder) is read in both places until `relayout` moves them, once.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { artifactOf, listArtifacts } from '../../shared/artifacts/artifacts.ts';
import { decisionIdFor, runDecisionPrefix } from '../../shared/runs/decision-repository.ts';
import { runKey } from '../../shared/store/ids.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { answeredDecision } from '../support/answered-decision.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-buckets-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const question = (runId: string, item: string) =>
  answeredDecision({ action: 'archive', id: decisionIdFor(runId, item), run_id: runId, item_id: item });

/** A keyed question written where a build before buckets kept it: the collection's own folder. */
async function writeFlat(record: ReturnType<typeof question>): Promise<void> {
  await fs.mkdir(path.join(dir, 'decisions'), { recursive: true });
  await fs.writeFile(path.join(dir, 'decisions', `${record.id}.json`), JSON.stringify(record));
}

describe('JSON files: a folder per run key', () => {
  it("writes a run's questions into its own folder and reads them by its key from there alone", async () => {
    const store = new JsonFileStore(dir);
    const a = question('run_a', '<1@x>');
    const b = question('run_b', '<2@x>');
    await store.create('decisions', a);
    await store.create('decisions', b);
    const key = runDecisionPrefix('run_a').slice(4, 12);
    expect(await fs.readdir(path.join(dir, 'decisions', key))).toEqual([`${a.id}.json`]);
    expect(await fs.readdir(path.join(dir, 'decisions'))).toEqual(expect.arrayContaining(['.bucketed', key]));
    // A flat file planted now is never listed: the folder says no keyed record is flat.
    await writeFlat(question('run_a', '<3@x>'));
    expect((await store.listByIdPrefix('decisions', runDecisionPrefix('run_a'))).map((d) => d.id)).toEqual([
      a.id,
    ]);
    expect((await store.get('decisions', a.id))?.id).toBe(a.id);
    expect((await store.list('decisions')).map((d) => d.id).sort()).toEqual(
      [a.id, b.id, decisionIdFor('run_a', '<3@x>')].sort(),
    );
  });

  it('reads, updates and then moves the keyed questions an earlier build kept flat', async () => {
    const old = question('run_a', '<1@x>');
    await writeFlat(old);
    await fs.writeFile(
      path.join(dir, 'decisions', 'dec_legacy.json'),
      JSON.stringify({ ...old, id: 'dec_legacy' }),
    );
    const store = new JsonFileStore(dir);
    expect((await store.get('decisions', old.id))?.id).toBe(old.id);
    expect((await store.listByIdPrefix('decisions', runDecisionPrefix('run_a'))).map((d) => d.id)).toEqual([
      old.id,
    ]);
    // An update lands in the run's folder and the flat copy goes: one record, not two.
    await store.update('decisions', { ...old, note: 'x' }, old.version);
    expect((await store.list('decisions')).filter((d) => d.id === old.id)).toHaveLength(1);

    const other = question('run_b', '<2@x>');
    await writeFlat(other);
    expect(await store.relayout()).toBe(1);
    expect(await store.relayout()).toBe(0); // once
    const key = runDecisionPrefix('run_b').slice(4, 12);
    expect(await fs.readdir(path.join(dir, 'decisions', key))).toEqual([`${other.id}.json`]);
    expect((await fs.readdir(path.join(dir, 'decisions'))).filter((n) => n.endsWith('.json'))).toEqual([
      'dec_legacy.json', // not keyed: stays
    ]);
    const fresh = new JsonFileStore(dir);
    expect((await fresh.listByIdPrefix('decisions', runDecisionPrefix('run_b'))).map((d) => d.id)).toEqual([
      other.id,
    ]);
    expect((await fresh.list('decisions')).map((d) => d.id).sort()).toEqual(
      [old.id, other.id, 'dec_legacy'].sort(),
    );
  });

  it("keeps a run's artifacts in its run's folder, and moves those an earlier build kept flat", async () => {
    const artifact = (runId: string, itemId: string | null) =>
      artifactOf(
        { kind: 'ticket', title: 'T', contentType: 'text/plain; charset=utf-8', body: 'b' },
        { workflowId: 'inbox', runId, itemId, decisionId: null },
      );
    // An earlier build's workspace: artifacts flat, no `.bucketed`.
    const old = artifact('run_old', null);
    await fs.mkdir(path.join(dir, 'artifacts'), { recursive: true });
    await fs.writeFile(path.join(dir, 'artifacts', `${old.id}.json`), JSON.stringify(old));
    const store = new JsonFileStore(dir);
    const fresh = artifact('run_a', '<1@x>');
    await store.put('artifacts', fresh);
    expect(await fs.readdir(path.join(dir, 'artifacts', runKey('run_a')))).toEqual([`${fresh.id}.json`]);
    expect((await listArtifacts(store, { runId: 'run_old' })).map((a) => a.id)).toEqual([old.id]);
    expect(await store.relayout()).toBe(1);
    expect(await fs.readdir(path.join(dir, 'artifacts', runKey('run_old')))).toEqual([`${old.id}.json`]);
    expect((await fs.readdir(path.join(dir, 'artifacts'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    const again = new JsonFileStore(dir);
    expect((await listArtifacts(again, { runId: 'run_a' })).map((a) => a.id)).toEqual([fresh.id]);
    expect((await again.get('artifacts', old.id))?.id).toBe(old.id);
    expect((await again.list('artifacts')).map((a) => a.id).sort()).toEqual([fresh.id, old.id].sort());
  });
});
