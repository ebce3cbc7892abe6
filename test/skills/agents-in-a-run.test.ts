/**
 * A named agent used as a specialist brings its own model tier and tools: it decides with
 * the fallback model when it says so, and reads only with its own integrations (the
 * executor keeps the workflow's).
 */
import { afterEach, expect, it } from '@jest/globals';
import type { Model } from '@strands-agents/sdk';
import { saveAgent } from '../../shared/agents/definitions.ts';
import { addEntry } from '../../shared/integrations/registry.ts';
import type { ModelRole } from '../../shared/models/provider.ts';
import { createRun } from '../../shared/runs/lifecycle.ts';
import { prepareRun } from '../../shared/runs/prepare.ts';
import { getWorkflow, saveWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { EVERYTHING_SERVER, MEMORY_SERVER } from '../integrations/support/npm-servers.ts';
import { executorScript, ScriptedModel } from '../support/scripted-model.ts';

let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

it('gives a named agent its own model tier and only its own tools', async () => {
  const models = new Map<ModelRole, Model>();
  const asked: ModelRole[] = [];
  fixture = await engineFixture({
    messages: [mail({ from: 'billing@shop.example', subject: 'Invoice 12' })],
    model: () =>
      new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'x' }))),
  });
  const base = fixture.deps.models;
  fixture.deps.models = async (role, options) => {
    asked.push(role);
    const model = await base(role, options);
    models.set(role, model);
    return model;
  };
  const stdio = (server: string) => ({
    kind: 'stdio' as const,
    command: process.execPath,
    args: [server, 'stdio'],
  });
  await addEntry(fixture.store, {
    name: 'everything',
    title: 'Everything',
    transport: stdio(EVERYTHING_SERVER()),
  });
  await addEntry(fixture.store, { name: 'memory', title: 'Memory', transport: stdio(MEMORY_SERVER()) });
  await saveAgent(fixture.store, 'billing', {
    description: 'invoices and receipts',
    instructions: 'Archive receipts.',
    model: 'fallback',
    tools: ['memory'],
    actions: ['archive'],
  });
  const workflow = await getWorkflow(fixture.store, 'inbox');
  await saveWorkflow(fixture.store, { ...workflow, integrations: ['everything'], agents: ['billing'] });

  const run = await createRun(fixture.store, 'inbox', { kind: 'manual', detail: null });
  const prepared = await prepareRun(fixture.deps, run, await getWorkflow(fixture.store, 'inbox'));
  try {
    expect(asked).toEqual(['primary', 'fallback']);
    const billing = prepared.desk!.specialists[0]!;
    expect(billing.name).toBe('billing');
    expect(billing.agent.model).toBe(models.get('fallback'));
    const names = (tools: { name: string }[]) => tools.map((t) => t.name);
    const own = names(billing.agent.toolRegistry.list());
    expect(own.some((n) => n.startsWith('memory__'))).toBe(true);
    expect(own.some((n) => n.startsWith('everything__'))).toBe(false);
    const executor = names(prepared.executor.toolRegistry.list());
    expect(executor).toContain('everything__echo');
    expect(executor.some((n) => n.startsWith('memory__'))).toBe(false);
  } finally {
    await prepared.close();
  }
}, 30_000);
