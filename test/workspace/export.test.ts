import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { addRule, listRules } from '../../shared/memory/rules-repository.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { applyWorkspace } from '../../shared/workspace/apply.ts';
import { exportWorkspace, toYaml } from '../../shared/workspace/file.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';

let dir: string;
let engine: EngineDeps;
beforeEach(async () => {
  ({ dir, engine } = await makeEngine());
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it('exports the rules you set; learned rules only when asked; applying them twice writes once', async () => {
  await addRule(engine.store, {
    workflowId: null,
    match: { domain: 'vendor.example' },
    action: 'archive',
    note: 'receipts',
  });
  await engine.store.create('rules', {
    id: 'rule_learned',
    workflow_id: null,
    match: { sender: 'ana@partner.example' },
    action: 'draft_reply',
    source: 'learned',
    note: null,
    confidence: 0.9,
    pattern: 'Anything from ana@partner.example → draft_reply',
    created_at: '2026-11-30T08:00:00.000Z',
  });
  const plain = await exportWorkspace(engine.store);
  expect(plain.rules.map((r) => r.source)).toEqual(['you']);
  const all = await exportWorkspace(engine.store, { withLearnedRules: true });
  expect(all.rules.map((r) => r.source).sort()).toEqual(['learned', 'you']);

  const other = await makeEngine();
  try {
    const text = toYaml(all);
    const first = await applyWorkspace(other.engine.store, text, 'workspace.yml');
    expect(first.changes.filter((c) => c.kind === 'rule')).toHaveLength(2);
    const second = await applyWorkspace(other.engine.store, text, 'workspace.yml');
    expect(second.changes).toEqual([]);
    const rules = await listRules(other.engine.store);
    expect(rules.map((r) => r.version)).toEqual([1, 1]); // created once, conditionally
    expect(toYaml(await exportWorkspace(other.engine.store, { withLearnedRules: true }))).toBe(text);
  } finally {
    await fs.rm(other.dir, { recursive: true, force: true });
  }
});

it('refuses a workflow whose `integrations` names an entry neither the file nor the registry has, and writes nothing', async () => {
  // Prepare: a workspace file from a workspace with the demo workflow, reading with `fetch` (built in) and `nowhere`.
  await addDemoWorkflow(engine, dir, { integrations: ['fetch'] });
  const file = await exportWorkspace(engine.store);
  const text = toYaml({
    ...file,
    workflows: file.workflows.map((w) => ({ ...w, integrations: ['fetch', 'nowhere'] })),
  });
  const other = await makeEngine();
  try {
    // Act / Assess
    await expect(applyWorkspace(other.engine.store, text, 'workspace.yml')).rejects.toThrow(
      /workflows\.0\.integrations\.1: no integration "nowhere"/,
    );
    expect(await other.engine.store.list('workflows')).toEqual([]);
  } finally {
    await fs.rm(other.dir, { recursive: true, force: true });
  }
});
