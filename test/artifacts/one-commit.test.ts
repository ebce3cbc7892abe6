/**
 * An artifact is recorded in the same durable write as the audit entry and the settled
 * claim of the item that produced it (the carry-out's one commit), never on its own.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { listArtifacts } from '../../shared/artifacts/artifacts.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Write } from '../../shared/store/store.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, bySubject, executorScript } from '../support/scripted-model.ts';

let fixture: EngineFixture | undefined;
let stateDir: string | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  if (stateDir) await fs.rm(stateDir, { recursive: true, force: true });
});

it('records each draft and ticket in the commit that writes its audit entry and settles its claim', async () => {
  stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-commit-'));
  const store = new JsonFileStore(stateDir);
  const commits: Write[][] = [];
  const commit = store.commit.bind(store);
  store.commit = (writes) => (commits.push([...writes]), commit(writes));
  fixture = await engineFixture({
    store,
    messages: [
      mail({ from: 'ana@partner.example', subject: 'Lunch?' }),
      mail({ from: 'qa@partner.example', subject: 'Export broken' }),
      mail({ from: 'news@digest.example', subject: 'Weekly digest' }),
    ],
    model: () =>
      new ScriptedModel(
        executorScript(
          bySubject({
            'Lunch?': { action: 'draft_reply', confidence: 0.9, reasoning: 'a colleague asks' },
            'Export broken': { action: 'file_ticket', confidence: 0.9, reasoning: 'a bug report' },
            'Weekly digest': { action: 'archive', confidence: 0.9, reasoning: 'a newsletter' },
          }),
        ),
      ),
  });
  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  expect(run.status).toBe('completed');

  const artifacts = await listArtifacts(store, { runId: run.id });
  expect(artifacts.map((a) => a.kind).sort()).toEqual(['draft', 'report', 'ticket']);
  for (const artifact of artifacts.filter((a) => a.item_id !== null)) {
    const holding = commits.filter((writes) =>
      writes.some((w) => w.collection === 'artifacts' && w.record.id === artifact.id),
    );
    expect(holding).toHaveLength(1);
    const together = holding[0]!.map((w) => [w.collection, w.kind, w.record.item_id ?? null]);
    expect(together).toEqual(
      expect.arrayContaining([
        ['audit', 'put', artifact.item_id],
        ['outcomes', 'update', artifact.item_id],
      ]),
    );
    expect(artifact.decision_id).toBeNull(); // the agent decided: no person, no decision
  }
  // An archive produces nothing: only the draft and the ticket were written as artifacts.
  expect(commits.flat().filter((w) => w.collection === 'artifacts')).toHaveLength(2);
});
