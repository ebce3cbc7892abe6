import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  HandoffConfigError,
  handoff,
  handoffs,
  handoffsOf,
  normaliseName,
  runWithHandoffs,
  transferToolName,
  withHandoffs,
  type HandoffRunContext,
} from '../../shared/handoffs/index.ts';
import { say, scripted } from './support.ts';

describe('synthesised transfer tools', () => {
  it('normalises agent names to snake case', () => {
    expect(normaliseName('Billing Agent')).toBe('billing_agent');
    expect(normaliseName('billingAgent')).toBe('billing_agent');
    expect(normaliseName('HTTPSupport')).toBe('http_support');
    expect(normaliseName('Customer Support Triage')).toBe('customer_support_triage');
    expect(normaliseName('  refunds--team! ')).toBe('refunds_team');
    expect(normaliseName('???')).toBe('agent');
    expect(transferToolName('Tech Support')).toBe('transfer_to_tech_support');
    expect(transferToolName('x'.repeat(80))).toHaveLength(64);
  });

  it('offers one transfer_to_<name> tool per target, with descriptions and schemas', async () => {
    const Escalation = z.object({
      reason: z.string().describe('Why this needs escalation.'),
      priority: z.number().int().min(1).max(5).describe('Priority 1-5.'),
    });
    const refunds = scripted('Refunds Agent', [say('-')], { description: 'Handles refunds.' }).agent;
    const billing = scripted('billingAgent', [say('-')]).agent;
    const escalation = scripted('Escalation', [say('-')]).agent;
    const triage = scripted('Triage', [say('nothing to route')], {
      plugins: [
        handoffs([
          refunds,
          handoff(billing, { description: 'Transfer for invoice or payment questions.' }),
          handoff(escalation, { inputType: Escalation, toolName: 'escalate' }),
        ]),
      ],
    });

    await runWithHandoffs(triage.agent, 'hi');

    const specs = triage.model.calls[0]!.options!.toolSpecs!;
    expect(specs.map((s) => s.name)).toEqual([
      'transfer_to_refunds_agent',
      'transfer_to_billing_agent',
      'escalate',
    ]);
    expect(specs[0]!.description).toBe(
      'Hand off to the Refunds Agent agent to handle the request. Handles refunds.',
    );
    expect(specs[1]!.description).toBe('Transfer for invoice or payment questions.');
    expect(specs[0]!.inputSchema).toEqual({ type: 'object', properties: {} });
    const { $schema: _drop, ...expected } = z.toJSONSchema(Escalation) as Record<string, unknown>;
    expect(specs[2]!.inputSchema).toEqual(expected);
    expect(specs[2]!.inputSchema).toMatchObject({
      required: ['reason', 'priority'],
      properties: { priority: { type: 'integer', minimum: 1, maximum: 5 } },
    });
  });

  it('is a frozen configuration, with defaults filled in', () => {
    const target = scripted('T', [say('-')]).agent;
    const h = handoff(target);
    expect(Object.isFrozen(h)).toBe(true);
    expect(Object.isFrozen(h.policy)).toBe(true);
    expect(h).toMatchObject({
      toolName: 'transfer_to_t',
      targetName: 'T',
      enabled: true,
      onHandoffForm: 'context',
    });
    expect(h.policy).toEqual({ budget: undefined, collapse: false, onError: 'raise' });
    expect(() => ((h as { toolName: string }).toolName = 'x')).toThrow(TypeError);
  });

  it('detects the onHandoff form from its arity and inputType', () => {
    const t = scripted('T', [say('-')]).agent;
    const Input = z.object({ id: z.string() });
    expect(handoff(t, { onHandoff: () => {} }).onHandoffForm).toBe('context');
    expect(handoff(t, { onHandoff: (_ctx) => {} }).onHandoffForm).toBe('context');
    expect(handoff(t, { onHandoff: (_ctx, _data) => {} }).onHandoffForm).toBe('data');
    expect(handoff(t, { inputType: Input, onHandoff: (_ctx, _input) => {} }).onHandoffForm).toBe('input');
    expect(handoff(t, { inputType: Input, onHandoff: (_c, _i, _d) => {} }).onHandoffForm).toBe(
      'inputAndData',
    );
  });

  it('refuses two targets with the same tool name, bad names and a negative budget', () => {
    const a = scripted('Support', [say('-')]).agent;
    const b = scripted('support', [say('-')]).agent;
    expect(() => handoffs([a, b])).toThrow(HandoffConfigError);
    expect(() => handoff(a, { toolName: 'has space' })).toThrow(HandoffConfigError);
    expect(() => handoff(a, { policy: { budget: -1 } })).toThrow(HandoffConfigError);
  });

  it('refuses configuring handoffs twice on one agent', () => {
    const t = scripted('T', [say('-')]).agent;
    const a = scripted('A', [say('-')]).agent;
    withHandoffs(a, [t]);
    expect(handoffsOf(a)?.handoffs.map((h) => h.toolName)).toEqual(['transfer_to_t']);
    expect(() => withHandoffs(a, [t])).toThrow(HandoffConfigError);
  });

  it('types the context of callbacks, and mixes differently-typed handoffs in one list', () => {
    const t = scripted('T', [say('-')]).agent;
    const premium = handoff(t, {
      enabled: (ctx: HandoffRunContext<{ tier: string }>) => ctx.context.tier === 'premium',
    });
    const plain = handoff(scripted('U', [say('-')]).agent);
    expect(() => handoffs([premium, plain])).not.toThrow();
  });
});
