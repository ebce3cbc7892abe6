/**
 * The engine's own wiring of integrations (prepareRun): a workflow that names none
 * pays nothing for them, and one that names an integration nobody set up says so on
 * the run's feed and fails that action, having done nothing.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import type { Collection, Store } from '../../shared/store/store.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { getWorkflow, saveWorkflow } from '../../shared/workflows/repository.ts';
import { addEntry } from '../../shared/integrations/registry.ts';
import { inspectRun } from '../../shared/recorder/views.ts';
import { engineFixture, mail, workflowYaml, type EngineFixture } from '../support/engine-fixture.ts';
import { EVERYTHING_SERVER } from './support/npm-servers.ts';
import { SPECIALISTS, specialistsScript } from '../handoffs/fixtures/specialists.ts';
import { executorScript, ScriptedModel } from '../support/scripted-model.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** The store as the run sees it, remembering which collections it touched. */
function watchedStore(inner: Store): { store: Store; touched: Set<Collection> } {
  const touched = new Set<Collection>();
  const seen = <T>(collection: Collection, result: T): T => (touched.add(collection), result);
  return {
    touched,
    store: {
      get: (c, id) => seen(c, inner.get(c, id)),
      list: (c) => seen(c, inner.list(c)),
      listWithStatus: (c, s) => seen(c, inner.listWithStatus(c, s)),
      create: (c, r) => seen(c, inner.create(c, r)),
      update: (c, r, v) => seen(c, inner.update(c, r, v)),
      put: (c, r) => seen(c, inner.put(c, r)),
      delete: (c, id) => seen(c, inner.delete(c, id)),
    },
  };
}

describe('a run and the integrations its workflow names', () => {
  it('reads neither the registry nor the credentials when the workflow names no integration', async () => {
    const sure = executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'a newsletter' }));
    fixture = await engineFixture({
      messages: [mail({ from: 'news@digest.example', subject: 'Weekly digest' })],
      model: () => new ScriptedModel(sure),
    });
    const watched = watchedStore(fixture.store);
    fixture.deps.store = watched.store;

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('completed');
    expect(watched.touched).toContain('runs');
    expect(watched.touched).not.toContain('tool_servers');
    expect(watched.touched).not.toContain('credentials');
  });

  it('gives the executor the read-only tools of the entries the workflow lists under integrations', async () => {
    const seen: string[][] = [];
    const echoes: string[] = [];
    const archive = executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'read it' }));
    fixture = await engineFixture({
      messages: [mail({ from: 'news@digest.example', subject: 'Weekly digest' })],
      model: () =>
        new ScriptedModel((results, input) => {
          seen.push((input.options?.toolSpecs ?? []).map((t) => t.name));
          if (results.length === 0)
            return { toolCalls: [{ name: 'everything__echo', input: { message: 'looked it up' } }] };
          const echoed = results.find((r) => r.name === 'everything__echo');
          if (echoed) {
            echoes.push(JSON.stringify(echoed.result));
            return archive([], input);
          }
          return archive(results, input);
        }),
    });
    await addEntry(fixture.store, {
      name: 'everything',
      title: 'Everything',
      transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER(), 'stdio'] },
    });
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        workflowYaml(fixture.maildir, 'integrations: [everything]').replace('id: inbox', 'id: reader'),
        'reader.yaml',
      ),
    );

    const run = await startRun(fixture.deps, 'reader', manual);

    expect(run.status).toBe('completed');
    expect(seen[0]).toEqual(expect.arrayContaining(['fetch_items', 'submit_action', 'everything__echo']));
    expect(seen[0]).not.toContain('everything__toggle_simulated_logging'); // world-changing: only as a gated action
    expect(echoes).toEqual([expect.stringContaining('Echo: looked it up')]); // the server answered
    const trace = await inspectRun(fixture.store, run.id);
    expect(JSON.stringify(trace)).toContain('Echo: looked it up');
    expect(await fixture.folder('.Archive')).toHaveLength(1);
  });

  it('gives a specialist the same read-only tools, and its decision still passes the gate', async () => {
    const echoes: string[] = [];
    fixture = await engineFixture({
      messages: [mail({ from: 'billing@shop.example', subject: 'Invoice 12' })],
      model: () =>
        new ScriptedModel(
          specialistsScript({
            executor: () => ({ intent: 'billing' }),
            specialist: (_name, item, results) => {
              const echoed = results.find((r) => r.name === 'everything__echo');
              if (echoed) {
                echoes.push(JSON.stringify(echoed.result));
                const input = {
                  item_id: item.id,
                  action: 'archive',
                  confidence: 0.9,
                  reasoning: 'a receipt',
                };
                return { toolCalls: [{ name: 'submit_action', input }] };
              }
              if (results.length > 0) return { text: 'done' };
              return { toolCalls: [{ name: 'everything__echo', input: { message: 'checked the invoice' } }] };
            },
          }),
        ),
      workflowExtra: SPECIALISTS,
    });
    await addEntry(fixture.store, {
      name: 'everything',
      title: 'Everything',
      transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER(), 'stdio'] },
    });
    // Named once it is in the registry (a save refuses an integration the registry lacks).
    await saveWorkflow(fixture.store, {
      ...(await getWorkflow(fixture.store, 'inbox')),
      integrations: ['everything'],
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('completed');
    expect(echoes).toEqual([expect.stringContaining('Echo: checked the invoice')]);
    const acted = (await listAudit(fixture.store, { runId: run.id })).find((e) => e.outcome === 'acted');
    expect(acted).toMatchObject({ action: 'archive', agent: 'billing' });
    expect(await fixture.folder('.Archive')).toHaveLength(1);
  });

  it('says on the feed why an integration cannot be used, and fails its action having done nothing', async () => {
    const propose = executorScript(() => ({
      action: 'linear__create_issue',
      confidence: 0.95,
      reasoning: 'a bug report',
    }));
    fixture = await engineFixture({
      messages: [mail({ from: 'qa@team.example', subject: 'Bug: login broken' })],
      model: () => new ScriptedModel(propose),
    });
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        `id: bugs
name: Bug intake
instructions: File bug reports as Linear issues.
trigger: { manual: true }
source: { type: maildir, path: ${fixture.maildir} }
actions:
  - { name: linear__create_issue }
human_gate: { options: [linear__create_issue, skip] }
`,
        'bugs.yaml',
      ),
    );

    const run = await startRun(fixture.deps, 'bugs', manual);

    expect(fixture.events).toContainEqual({
      channel: run.id,
      kind: 'failed',
      text: 'Integration linear cannot be used in this run: needs credential LINEAR_API_KEY',
    });
    const audit = await listAudit(fixture.store, { runId: run.id });
    expect(audit.find((e) => e.item_id)).toMatchObject({
      action: 'linear__create_issue',
      outcome: 'failed',
      detail: expect.stringContaining('integration linear is not connected for this run; nothing was done'),
    });
    expect(await fixture.inbox()).toHaveLength(1);
  });
});
