import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { createRun } from '../../shared/runs/lifecycle.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import type { Store, Write } from '../../shared/store/store.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, bySubject, executorScript } from '../support/scripted-model.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** The store, with every durable write it is asked for logged as the collections it touches. */
function loggingWrites(store: Store): { store: Store; writes: string[][] } {
  const writes: string[][] = [];
  const logged = Object.create(store) as Store;
  for (const kind of ['create', 'update', 'put', 'delete'] as const)
    Object.assign(logged, {
      [kind]: (collection: string, ...rest: unknown[]) => {
        writes.push([collection]);
        return (store[kind] as (...a: unknown[]) => unknown).call(store, collection, ...rest);
      },
    });
  logged.commit = (batch: readonly Write[]) => {
    writes.push(batch.map((w) => w.collection));
    return store.commit!(batch);
  };
  return { store: logged, writes };
}

describe("a run's lifecycle writes", () => {
  it('creates the run with its run_started entry in one write, and a second start of the same id adds neither', async () => {
    fixture = await engineFixture({
      messages: [],
      model: () => new ScriptedModel(executorScript(bySubject({}))),
    });
    const { store, writes } = loggingWrites(fixture.store);

    const run = await createRun(store, 'inbox', manual, 'run_fixed');
    let again: unknown;
    try {
      await createRun(store, 'inbox', { kind: 'schedule', detail: null }, 'run_fixed');
    } catch (error) {
      again = error;
    }

    expect(writes[0]).toEqual(['runs', 'audit']);
    expect(errorMessage(again)).toMatch(/runs\/run_fixed already exists/);
    expect((await getRun(fixture.store, 'run_fixed')).trigger.kind).toBe('manual');
    const started = (await listAudit(fixture.store)).filter((e) => e.run_id === run.id);
    expect(started.map((e) => [e.outcome, e.detail])).toEqual([['run_started', 'manual trigger']]);
  });

  it('pauses with the questions, the interrupt and the waiting run (with its graph) in one write', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'news@digest.example', subject: 'Weekly digest' }),
        mail({ from: 'ana@partner.example', subject: 'Partnership' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(
            bySubject({
              'Weekly digest': { action: 'archive', confidence: 0.9, reasoning: 'a newsletter' },
              Partnership: { action: 'archive', confidence: 0.4, reasoning: 'cannot tell' },
            }),
          ),
        ),
    });
    const { store, writes } = loggingWrites(fixture.store);

    const run = await startRun({ ...fixture.deps, store }, 'inbox', manual);

    expect(run.status).toBe('waiting');
    const runWrites = writes.filter((w) => w.includes('runs'));
    // The run is written twice in all: created, then paused; the graph is never saved alone.
    expect(runWrites).toEqual([
      ['runs', 'audit'],
      ['decisions', 'interrupts', 'runs'],
    ]);
    const saved = await getRun(fixture.store, run.id);
    expect(saved.snapshot?.schemaVersion).toBe(1);
    expect(saved.interrupt_id).not.toBeNull();
  });
});
