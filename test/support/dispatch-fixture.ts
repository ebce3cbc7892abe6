import type { EngineDeps } from '../../shared/runs/deps.ts';
import type { Step } from '../../shared/runs/dispatch.ts';
import type { Store } from '../../shared/store/store.ts';
import { engineFixture, mail, type EngineFixture } from './engine-fixture.ts';
import { ScriptedModel, executorScript } from './scripted-model.ts';

export interface DispatchFixture {
  fixture: EngineFixture;
  /** Every dispatch the dispatcher sent, in order. */
  sent: { run_id: string; node: Step }[];
  /** Set `next` to N: the next N dispatches fail as PutEvents would. */
  failing: { next: number };
}

/**
 * An engine in dispatch mode (each step in "another process") over two messages, one the
 * model is sure of (acted) and one it is not (asked), with a dispatcher that records;
 * on `store` when given (else the fixture's JSON files).
 */
export async function dispatchFixture(store?: Store): Promise<DispatchFixture> {
  const sent: DispatchFixture['sent'] = [];
  const failing = { next: 0 };
  const fixture = await engineFixture({
    messages: [
      mail({ from: 'a@x.example', subject: 'Sure' }),
      mail({ from: 'b@x.example', subject: 'Unsure' }),
    ],
    model: () =>
      new ScriptedModel(
        executorScript((item) => ({
          action: 'file_ticket',
          confidence: item.subject === 'Sure' ? 0.9 : 0.3,
          reasoning: 'r',
        })),
      ),
    ...(store ? { store } : {}),
  });
  fixture.deps.dispatcher = {
    dispatch: async (step) => {
      if (failing.next > 0) {
        failing.next -= 1;
        throw new Error('PutEvents failed');
      }
      sent.push(step);
    },
  };
  return { fixture, sent, failing };
}

/** The engine of `default` for a Lambda handler; any other workspace fails the test. */
export function defaultOnly(engine: EngineDeps): (workspace: string) => EngineDeps {
  return (workspace) => {
    if (workspace !== 'default') throw new Error(`expected the default workspace, got ${workspace}`);
    return engine;
  };
}
