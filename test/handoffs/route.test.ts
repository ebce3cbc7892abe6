import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  UnhandledIntentError,
  handoffOccurred,
  handoffRoute,
  handoffs,
  keepLastN,
  runWithHandoffs,
  type HandoffRunContext,
} from '../../shared/handoffs/index.ts';
import type { PlannedTurn, TurnInput } from '../../shared/models/turn-model.ts';
import { say, scripted } from './support.ts';

const RefundIntent = z.object({ kind: z.literal('refund'), orderId: z.string().optional() });
const BillingIntent = z.object({ kind: z.literal('billing') });
const TechnicalIssue = z.object({ kind: z.literal('technical'), product: z.string() });
const Respond = z.object({ kind: z.literal('respond'), text: z.string() });
const TriageOutput = z.discriminatedUnion('kind', [RefundIntent, BillingIntent, TechnicalIssue, Respond]);

type Tier = { tier: 'premium' | 'basic' };
const premiumOnly = (ctx: HandoffRunContext<Tier>) => ctx.context.tier === 'premium';
const ctxOf = (tier: Tier['tier']): HandoffRunContext<Tier> => ({
  context: { tier },
  newItems: [],
  handoffCount: 0,
});

/** A classifier model: it answers the structured-output tool with a fixed intent. */
const classify =
  (intent: Record<string, unknown>) =>
  (_r: unknown, input: TurnInput): PlannedTurn => ({
    toolCalls: [{ name: input.options!.toolSpecs![0]!.name, input: intent }],
  });

function specialists() {
  return {
    refunds: scripted('Refunds', [say('refund issued')]),
    billing: scripted('Billing', [say('billing sorted')]),
    technical: scripted('Technical', [say('rebooted it')]),
    general: scripted('General', [say('general answer')]),
  };
}

describe('HandoffRoute.resolve (pure code)', () => {
  const s = specialists();
  const route = handoffRoute<Tier>('triage')
    .when(TechnicalIssue)
    .to(s.technical.agent, { enabled: premiumOnly })
    .when(RefundIntent)
    .to(s.refunds.agent)
    .when(z.object({ kind: z.literal('technical') }))
    .to(s.billing.agent)
    .otherwise(s.general.agent);

  it('maps an intent type to its agent, with the parsed intent', async () => {
    const match = await route.resolve({ kind: 'refund', orderId: '123' }, ctxOf('basic'));
    expect(match.target).toBe(s.refunds.agent);
    expect(match.rule).toBe(1);
    expect(match.intent).toEqual({ kind: 'refund', orderId: '123' });
  });

  it('falls through a matched rule whose enabled check fails, to the next match', async () => {
    const premium = await route.resolve({ kind: 'technical', product: 'router' }, ctxOf('premium'));
    expect(premium.target).toBe(s.technical.agent);
    const basic = await route.resolve({ kind: 'technical', product: 'router' }, ctxOf('basic'));
    expect(basic.target).toBe(s.billing.agent);
    expect(basic.rule).toBe(2);
  });

  it('falls back to otherwise() when nothing matches', async () => {
    const match = await route.resolve({ kind: 'respond', text: 'hi' }, ctxOf('basic'));
    expect(match.target).toBe(s.general.agent);
    expect(match.rule).toBe('otherwise');
  });

  it('raises UnhandledIntentError with no match and no fallback', async () => {
    const strict = handoffRoute<Tier>('strict')
      .when(TechnicalIssue)
      .to(s.technical.agent, { enabled: premiumOnly });
    const error = await strict
      .resolve({ kind: 'technical', product: 'x' }, ctxOf('basic'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnhandledIntentError);
    expect(error).toMatchObject({
      name: 'UnhandledIntentError',
      route: 'strict',
      intent: { kind: 'technical' },
    });
    expect((error as Error).message).toContain('kind="technical"');
  });

  it('is immutable: each step returns a new route', () => {
    const base = handoffRoute('r');
    const one = base.when(RefundIntent).to(s.refunds.agent);
    expect(base.rules).toHaveLength(0);
    expect(one.rules).toHaveLength(1);
    expect(Object.isFrozen(one)).toBe(true);
  });

  it('has a compact factory form', async () => {
    const compact = handoffRoute.of([RefundIntent, s.refunds.agent], [BillingIntent, s.billing.agent], {
      otherwise: s.general.agent,
      name: 'compact',
    });
    expect(compact.name).toBe('compact');
    expect((await compact.resolve({ kind: 'billing' }, ctxOf('basic'))).target).toBe(s.billing.agent);
    expect((await compact.resolve({ kind: 'technical', product: 'p' }, ctxOf('basic'))).target).toBe(
      s.general.agent,
    );
    await expect(
      handoffRoute.of([RefundIntent, s.refunds.agent]).resolve({ kind: 'x' }, ctxOf('basic')),
    ).rejects.toThrow(UnhandledIntentError);
  });
});

describe('code-orchestrated handoffs in a run', () => {
  function triageFor(intent: Record<string, unknown>) {
    const s = specialists();
    const route = handoffRoute<Tier>('triage')
      .when(TechnicalIssue)
      .to(s.technical.agent, { enabled: premiumOnly })
      .when(RefundIntent)
      .to(s.refunds.agent, { inputFilter: keepLastN(1) })
      .when(BillingIntent)
      .to(s.billing.agent)
      .otherwise(s.general.agent);
    const triage = scripted('Triage', classify(intent), {
      systemPrompt: "Classify the user's request into an intent type.",
      structuredOutputSchema: TriageOutput,
      plugins: [handoffs(route)],
    });
    return { ...s, triage };
  }

  it('routes on the structured intent with no model call for the routing decision', async () => {
    const t = triageFor({ kind: 'billing' });

    const result = await runWithHandoffs(t.triage.agent, 'I was charged twice.', {
      context: { tier: 'basic' },
    });

    expect(result.lastAgent).toBe(t.billing.agent);
    expect(result.output).toBe('billing sorted');
    // one call to classify, one for the specialist's answer: the route itself spent none
    expect(t.triage.model.calls).toHaveLength(1);
    expect(t.billing.model.calls).toHaveLength(1);
    expect(t.triage.model.stats.turns + t.billing.model.stats.turns).toBe(2);
    for (const idle of [t.refunds, t.technical, t.general]) expect(idle.model.calls).toHaveLength(0);
    expect(handoffOccurred(result, 'Triage', 'Billing')).toBe(true);
    expect(result.newItems.slice(0, 2)).toMatchObject([
      { type: 'handoff_call', via: 'route', source: 'Triage', target: 'Billing', input: { kind: 'billing' } },
      { type: 'handoff_output', source: 'Triage', target: 'Billing' },
    ]);
    // the specialist sees the conversation, including the classification
    expect(t.billing.model.calls[0]!.messages[0]!.content[0]).toMatchObject({ text: 'I was charged twice.' });
  });

  it('falls through a disabled rule to the fallback, and applies per-route filters', async () => {
    const basic = triageFor({ kind: 'technical', product: 'router' });
    const r1 = await runWithHandoffs(basic.triage.agent, 'router broken', { context: { tier: 'basic' } });
    expect(r1.lastAgent).toBe(basic.general.agent);

    const premium = triageFor({ kind: 'technical', product: 'router' });
    const r2 = await runWithHandoffs(premium.triage.agent, 'router broken', { context: { tier: 'premium' } });
    expect(r2.lastAgent).toBe(premium.technical.agent);

    const refund = triageFor({ kind: 'refund', orderId: '42' });
    await runWithHandoffs(refund.triage.agent, 'refund 42', { context: { tier: 'basic' } });
    // keepLastN(1) kept the classification result only; it had its call cut, so a handoff note stands in
    const seen = refund.refunds.model.calls[0]!.messages;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.content[0]).toMatchObject({ type: 'textBlock' });
  });

  it('raises UnhandledIntentError out of the run when nothing takes the intent', async () => {
    const s = specialists();
    const triage = scripted('Triage', classify({ kind: 'respond', text: 'hello' }), {
      structuredOutputSchema: TriageOutput,
      plugins: [handoffs(handoffRoute('triage').when(RefundIntent).to(s.refunds.agent))],
    });
    await expect(runWithHandoffs(triage.agent, 'hi')).rejects.toBeInstanceOf(UnhandledIntentError);
  });
});
