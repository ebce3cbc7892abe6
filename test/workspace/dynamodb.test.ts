/**
 * workspace.yml on DynamoDB (dynalite): a workspace exported from the JSON files applies into
 * a DynamoDB table in one batch and exports back the same; skill versions are conditional
 * creates there too, and a bad file writes nothing.
 */
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { saveAgent } from '../../shared/agents/definitions.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { saveSkill, skills } from '../../shared/skills/skills.ts';
import { COLLECTIONS, type Store } from '../../shared/store/store.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { applyWorkspace, WorkspaceFileError } from '../../shared/workspace/apply.ts';
import { exportWorkspace, toYaml } from '../../shared/workspace/file.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';

const table = dynaliteTables('workspace');
let dir: string;
let engine: EngineDeps;
beforeEach(async () => {
  ({ dir, engine } = await makeEngine());
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function everything(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const c of COLLECTIONS) out[c] = (await store.list(c)).sort((a, b) => a.id.localeCompare(b.id));
  return out;
}

it('applies a workspace from the JSON files into DynamoDB, and exports the same file back', async () => {
  await saveSkill(engine.store, 'tone-of-voice', 'Short, warm sentences.');
  await saveSkill(engine.store, 'tone-of-voice', 'Short, plain sentences.');
  await saveAgent(engine.store, 'billing', { description: 'bills', instructions: 'Archive receipts.' });
  const demo = await addDemoWorkflow(engine, dir);
  await saveWorkflow(engine.store, { ...demo, skills: ['tone-of-voice'], agents: ['billing'] });
  await saveProfile(engine.store, {
    time_zone: 'America/New_York',
    quiet_hours: { start: '22:00', end: '06:30' },
  });
  await addRule(engine.store, {
    workflowId: demo.id,
    match: { sender: 'boss@corp.example' },
    action: 'draft_reply',
    note: null,
  });
  const text = toYaml(await exportWorkspace(engine.store));

  const dynamo = await table();
  const result = await applyWorkspace(dynamo, text, 'workspace.yml');
  expect(result.changes.map((c) => `${c.change} ${c.kind}`).sort()).toEqual([
    'add agent',
    'add rule',
    'add skill',
    'add workflow',
    'update profile',
  ]);
  expect(toYaml(await exportWorkspace(dynamo))).toBe(text);
  expect((await skills.versions(dynamo, 'tone-of-voice')).map((v) => v.version)).toEqual([1]); // the latest text, as version 1

  const before = await everything(dynamo);
  expect((await applyWorkspace(dynamo, text, 'workspace.yml')).changes).toEqual([]);
  const broken = text
    .replace('- tone-of-voice', '- tone-of-voce')
    .replace('time_zone: America/New_York', 'time_zone: America/Gotham');
  await expect(applyWorkspace(dynamo, broken, 'workspace.yml')).rejects.toThrow(WorkspaceFileError);
  expect(await everything(dynamo)).toEqual(before);
}, 30_000);
