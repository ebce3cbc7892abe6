/**
 * One workflow run, the same on every provider: three messages, a scripted policy
 * that drives fetch_items → submit_action per item → finish_batch from the server's
 * side, and what the gate must have done about it.
 */
import type { Model } from '@strands-agents/sdk';
import { expect } from '@jest/globals';
import { listAudit } from '../../../../shared/audit/audit.ts';
import { listPending } from '../../../../shared/runs/decision-repository.ts';
import type { Run } from '../../../../shared/records/runs.ts';
import { startRun } from '../../../../shared/runs/start-run.ts';
import type { PlannedTurn } from '../../../../shared/models/turn-model.ts';
import { engineFixture, mail, type EngineFixture } from '../../../support/engine-fixture.ts';
import { bySubject, executorScript } from '../../../support/scripted-model.ts';
import { scriptPolicy, type Policy } from './conversation.ts';

export const PROPOSALS: Record<string, Record<string, unknown>> = {
  'Weekly digest': {
    action: 'archive',
    confidence: 0.92,
    reasoning: 'a newsletter with an unsubscribe link',
  },
  Partnership: { action: 'archive', confidence: 0.4, reasoning: 'cannot tell a lead from a pitch' },
  'Purge request': { action: 'delete', confidence: 0.99, reasoning: 'asks to be deleted' },
};

/** The sure-only variant: the run completes without asking. */
export const SURE_PROPOSALS: Record<string, Record<string, unknown>> = {
  'Weekly digest': { action: 'archive', confidence: 0.92, reasoning: 'a newsletter' },
  'Invoice 2291': { action: 'archive', confidence: 0.88, reasoning: 'a receipt' },
};

/** The executor's loop, proposals by subject, as a server-side policy. */
export function workflowPolicy(table: Record<string, Record<string, unknown>> = PROPOSALS): Policy {
  return scriptPolicy(executorScript(bySubject(table)));
}

/** Whether a planned turn is the page of submit_action calls. */
export function isSubmitTurn(
  turn: PlannedTurn,
): turn is { toolCalls: { name: string; input: Record<string, unknown> }[] } {
  return 'toolCalls' in turn && turn.toolCalls.some((c) => c.name === 'submit_action');
}

export async function workflowFixture(
  model: () => Model,
  table: Record<string, Record<string, unknown>> = PROPOSALS,
): Promise<EngineFixture> {
  const subjects = Object.keys(table);
  const senders: Record<string, string> = {
    'Weekly digest': 'news@digest.example',
    Partnership: 'ana@partner.example',
    'Purge request': 'ops@vendor.example',
    'Invoice 2291': 'billing@shop.example',
  };
  return engineFixture({
    messages: subjects.map((subject) => mail({ from: senders[subject] ?? 'x@test.example', subject })),
    model,
  });
}

export const manual = { kind: 'manual', detail: null } as const;

export async function runWorkflow(fixture: EngineFixture): Promise<Run> {
  return startRun(fixture.deps, 'inbox', manual);
}

/** The gate acted on the sure item only, set the other two aside untouched, and asked once. */
export async function expectGateBehaved(fixture: EngineFixture, run: Run): Promise<void> {
  expect(run.error).toBeNull();
  expect(run.status).toBe('waiting');
  expect(run.counts).toMatchObject({ acted: 1, confident: 1, deferred: 2 });
  expect(await fixture.folder('.Archive')).toHaveLength(1);
  expect(await fixture.folder('.Trash')).toHaveLength(0);
  expect(await fixture.inbox()).toHaveLength(2); // nothing was done to the deferred items
  const pending = await listPending(fixture.store);
  expect(pending.map((d) => [d.subject, d.reason]).sort()).toEqual([
    ['Partnership', 'low_confidence'],
    ['Purge request', 'irreversible'],
  ]);
  expect(pending.find((d) => d.subject === 'Partnership')?.reasoning).toBe('cannot tell a lead from a pitch');
  expect(fixture.notices.filter((n) => n.kind === 'asked')).toHaveLength(1);
  const acted = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.outcome === 'acted');
  expect(acted).toMatchObject([{ action: 'archive', decided_by: 'model', confidence: 0.92 }]);
}

/** Every item acted on, nothing asked. */
export async function expectCompleted(fixture: EngineFixture, run: Run): Promise<void> {
  expect(run.error).toBeNull();
  expect(run.status).toBe('completed');
  expect(run.counts).toMatchObject({ acted: 2, deferred: 0 });
  expect(await fixture.folder('.Archive')).toHaveLength(2);
  expect(await fixture.inbox()).toHaveLength(0);
  expect(await listPending(fixture.store)).toHaveLength(0);
}
