import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { saveAgent } from '../../shared/agents/definitions.ts';
import { executorPrompt } from '../../shared/agents/executor/prompt.ts';
import { deleteAgent, deleteSkill } from '../../shared/library/usage.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { saveSkill, skills } from '../../shared/skills/skills.ts';
import { getWorkflow, saveWorkflow } from '../../shared/workflows/repository.ts';
import { resolveWorkflow, skillTexts } from '../../shared/workflows/resolve.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';

let dir: string;
let engine: EngineDeps;
beforeEach(async () => {
  ({ dir, engine } = await makeEngine());
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('skills and agents in a run', () => {
  it('keeps every version; saving the same text again makes none', async () => {
    expect((await saveSkill(engine.store, 'tone-of-voice', 'Be brief.')).saved.version).toBe(1);
    expect(await saveSkill(engine.store, 'tone-of-voice', 'Be brief.')).toMatchObject({ created: false });
    expect((await saveSkill(engine.store, 'tone-of-voice', 'Be brief and warm.')).saved.version).toBe(2);
    expect((await skills.versions(engine.store, 'tone-of-voice')).map((v) => v.content.body)).toEqual([
      'Be brief.',
      'Be brief and warm.',
    ]);
    await expect(skills.get(engine.store, 'tone-of-voice', 7)).rejects.toThrow(
      /has no version 7 \(it has 1, 2\)/,
    );
  });

  it('refuses a workflow naming an unknown skill or agent, naming each', async () => {
    const workflow = await addDemoWorkflow(engine, dir);
    await expect(
      saveWorkflow(engine.store, { ...workflow, skills: ['tone-of-voce'], agents: ['billing'] }),
    ).rejects.toThrow(
      'skills.0: no skill "tone-of-voce" (add it: handoff skills add tone-of-voce --file FILE); agents.0: no agent "billing"',
    );
    expect((await getWorkflow(engine.store, workflow.id)).skills).toBeUndefined(); // unchanged
  });

  it('records on the run the versions it used, and reads those on resume even after a newer save', async () => {
    await saveSkill(engine.store, 'tone-of-voice', 'Old words.');
    await saveSkill(engine.store, 'tone-of-voice', 'Short, warm sentences.');
    await saveAgent(engine.store, 'billing', {
      description: 'invoices and receipts',
      instructions: 'Archive receipts; ask about anything that asks for money.',
      actions: ['archive'],
      skills: ['tone-of-voice'],
    });
    const base = await addDemoWorkflow(engine, dir);
    await saveWorkflow(engine.store, { ...base, skills: ['tone-of-voice'], agents: ['billing'] });
    const run = await startRun(engine, base.id, { kind: 'manual', detail: null });
    expect(run.status).not.toBe('failed');
    const stored = await getRun(engine.store, run.id);
    expect(stored.skills).toEqual([{ name: 'tone-of-voice', version: 2 }]);
    expect(stored.agents).toEqual([{ name: 'billing', version: 1 }]);

    await saveSkill(engine.store, 'tone-of-voice', 'A third text.');
    const workflow = await getWorkflow(engine.store, base.id);
    const pinned = await resolveWorkflow(engine.store, workflow, {
      skills: stored.skills!,
      agents: stored.agents!,
    });
    expect(pinned.workflow.specialists?.map((s) => s.name)).toEqual(['billing']);
    const prompt = executorPrompt(pinned.workflow, 0.7, skillTexts(pinned.workflow.skills, pinned.skills));
    expect(prompt).toContain('--- skill tone-of-voice (version 2) ---\nShort, warm sentences.');
    expect(prompt).not.toContain('A third text.');
    const latest = await resolveWorkflow(engine.store, workflow);
    expect(latest.pins.skills).toEqual([{ name: 'tone-of-voice', version: 3 }]);
  });

  it('refuses to delete a skill or agent while a workflow uses it', async () => {
    await saveSkill(engine.store, 'tone-of-voice', 'Be brief.');
    await saveAgent(engine.store, 'billing', { description: 'bills', instructions: 'Archive receipts.' });
    const base = await addDemoWorkflow(engine, dir);
    await saveWorkflow(engine.store, { ...base, skills: ['tone-of-voice'], agents: ['billing'] });
    await expect(deleteSkill(engine.store, 'tone-of-voice')).rejects.toThrow(
      `skill tone-of-voice is used by workflow ${base.id}: remove it from it first`,
    );
    await expect(deleteAgent(engine.store, 'billing')).rejects.toThrow(/agent billing is used by workflow/);
    expect(await skills.versions(engine.store, 'tone-of-voice')).toHaveLength(1);
    await saveWorkflow(engine.store, base);
    expect(await deleteSkill(engine.store, 'tone-of-voice')).toBe(1);
  });
});
