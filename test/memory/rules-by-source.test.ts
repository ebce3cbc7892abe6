/**
 * Rules belong to the mailbox they describe (docs/rules-by-source.md): two workflows read the
 * same Maildir; an answer in one teaches the other, unless it was kept to its workflow, and a
 * rule written before rules belonged to sources still fires in its own workflow.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { learnFromDecision } from '../../shared/runs/learn.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { engineFixture, mail, workflowYaml, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** A Maildir with one message from ana, read by `inbox` and by a second workflow `billing`. */
async function twoWorkflowsOnOneMailbox(): Promise<EngineFixture> {
  fixture = await engineFixture({
    messages: [mail({ from: 'ana@vendor.example', subject: 'Invoice 4411 is overdue' })],
    // Unsure of everything: only a rule decides without asking.
    model: () =>
      new ScriptedModel(
        executorScript(() => ({ action: 'draft_reply', confidence: 0.3, reasoning: 'unsure' })),
      ),
  });
  const second = workflowYaml(fixture.maildir)
    .replace('id: inbox', 'id: billing')
    .replace('Test inbox', 'Billing');
  await saveWorkflow(fixture.store, parseWorkflow(second, 'billing.yaml'));
  return fixture;
}

/** The learner (offline model) learns from an answer given in workflow `inbox`. */
async function answerInInbox(over: Parameters<typeof answeredDecision>[0]) {
  const learner = { ...fixture.deps, models: async () => new OfflineModel() };
  return learnFromDecision(learner, answeredDecision(over));
}

describe('rules by source', () => {
  it('an answer in one workflow makes the other handle that sender by the rule, without asking', async () => {
    await twoWorkflowsOnOneMailbox();
    const learned = await answerInInbox({ action: 'archive' });
    expect(learned).toMatchObject({
      kind: 'learned',
      rule: { scope: 'source', source_key: `maildir:${fixture.maildir}` },
    });

    const run = await startRun(fixture.deps, 'billing', manual);
    expect(run.counts).toMatchObject({ by_learned_rules: 1, deferred: 0 });
    expect(await listPending(fixture.store)).toEqual([]);
    expect(await fixture.folder('.Archive')).toHaveLength(1);
    const audit = (await listAudit(fixture.store)).filter(
      (e) => e.run_id === run.id && e.outcome !== 'unparseable',
    );
    expect(audit.map((e) => e.workflow_id)).toContain('billing');
  });

  it('an answer kept to its workflow does not: the other workflow asks', async () => {
    await twoWorkflowsOnOneMailbox();
    const base = answeredDecision({ action: 'archive' });
    const learned = await answerInInbox({
      action: 'archive',
      answer: { ...base.answer!, scope: 'workflow' },
    });
    expect(learned).toMatchObject({ kind: 'learned', rule: { scope: 'workflow' } });

    const run = await startRun(fixture.deps, 'billing', manual);
    expect(run.status).toBe('waiting');
    expect(run.counts).toMatchObject({ by_learned_rules: 0, deferred: 1 });
    expect(await fixture.folder('.Archive')).toHaveLength(0);
  });

  it('a rule from before rules belonged to sources still fires in its own workflow, and only there', async () => {
    await twoWorkflowsOnOneMailbox();
    const { addRule } = await import('../../shared/memory/rules-repository.ts');
    await addRule(fixture.store, {
      workflowId: 'inbox',
      match: { sender: 'ana@vendor.example' },
      action: 'archive',
      note: null,
    }); // no source_key: as every rule written before
    const other = await startRun(fixture.deps, 'billing', manual);
    expect(other.counts).toMatchObject({ by_your_rules: 0, deferred: 1 });
    const own = await startRun(fixture.deps, 'inbox', manual);
    expect(own.counts).toMatchObject({ by_your_rules: 1 });
  });
});
