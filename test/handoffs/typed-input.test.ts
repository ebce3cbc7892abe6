import type { Agent } from '@strands-agents/sdk';
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  HandoffCallbackError,
  HandoffInputError,
  handoff,
  handoffs,
  runWithHandoffs,
  type Handoff,
  type HandoffInputData,
  type HandoffPolicy,
  type HandoffRunContext,
} from '../../shared/handoffs/index.ts';
import { call, lastResults, say, scripted } from './support.ts';

const Escalation = z.object({
  reason: z.string().min(1),
  priority: z.number().int().min(1).max(5),
});
type Escalation = z.infer<typeof Escalation>;

/** Triage escalates with `first`; if refused, it retries with `second` (or gives up). */
function triageWith(
  first: Record<string, unknown>,
  options: { onError?: HandoffPolicy['onError']; second?: Record<string, unknown> } = {},
  onHandoff?: (ctx: HandoffRunContext, input: Escalation) => void,
) {
  const escalation = scripted('Escalation', [say('escalated')]);
  const triage = scripted(
    'Triage',
    (results) => {
      if (results.length === 0) return call('transfer_to_escalation', first);
      return options.second ? call('transfer_to_escalation', options.second) : say('handled it myself');
    },
    {
      plugins: [
        handoffs([
          handoff(escalation.agent, {
            inputType: Escalation,
            ...(options.onError ? { policy: { onError: options.onError } } : {}),
            ...(onHandoff ? { onHandoff } : {}),
          }),
        ]),
      ],
    },
  );
  return { escalation, triage };
}

describe('typed handoff input', () => {
  it('validates the arguments and hands the parsed input to onHandoff', async () => {
    const got: Escalation[] = [];
    const { triage, escalation } = triageWith(
      { reason: 'angry customer', priority: 4 },
      {},
      (_ctx, input) => {
        got.push(input);
      },
    );
    const result = await runWithHandoffs(triage.agent, 'escalate please');
    expect(got).toEqual([{ reason: 'angry customer', priority: 4 }]);
    expect(result.lastAgent).toBe(escalation.agent);
    expect(result.newItems[0]).toMatchObject({
      type: 'handoff_call',
      input: { reason: 'angry customer', priority: 4 },
    });
  });

  it("onError 'raise': invalid arguments throw a typed error and nothing is handed off", async () => {
    const fired: unknown[] = [];
    const { triage, escalation } = triageWith(
      { reason: 'x', priority: 9 },
      {},
      (_c, i) => void fired.push(i),
    );
    const error = await runWithHandoffs(triage.agent, 'escalate').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandoffInputError);
    expect((error as HandoffInputError).name).toBe('HandoffInputError');
    expect((error as HandoffInputError).toolName).toBe('transfer_to_escalation');
    expect((error as HandoffInputError).issues[0]).toMatchObject({ path: ['priority'] });
    expect(fired).toEqual([]); // validated before onHandoff
    expect(escalation.model.calls).toHaveLength(0);
  });

  it("onError 'rejectWithMessage': the model reads why, and the source agent carries on", async () => {
    const { triage, escalation } = triageWith({ priority: 0 }, { onError: 'rejectWithMessage' });
    const result = await runWithHandoffs(triage.agent, 'escalate');
    const [refusal] = lastResults(triage.model.calls[1]!.messages);
    expect(refusal!.status).toBe('error');
    expect(refusal!.text).toContain('rejected');
    expect(refusal!.text).toContain('priority');
    expect(result.lastAgent).toBe(triage.agent);
    expect(result.output).toBe('handled it myself');
    expect(escalation.model.calls).toHaveLength(0);
    expect(result.newItems.map((i) => i.type)).toEqual(['tool_call', 'tool_output', 'message']);
  });

  it("'rejectWithMessage' lets the model fix its arguments and try again", async () => {
    const { triage, escalation } = triageWith(
      { reason: '', priority: 2 },
      { onError: 'rejectWithMessage', second: { reason: 'fixed', priority: 2 } },
    );
    const result = await runWithHandoffs(triage.agent, 'escalate');
    expect(result.lastAgent).toBe(escalation.agent);
    expect(result.handoffCount).toBe(1);
  });
});

describe('onHandoff', () => {
  it('receives (ctx), (ctx, data), (ctx, input) or (ctx, input, data) by its arity', async () => {
    const calls: string[] = [];
    const Ticket = z.object({ id: z.string() });
    const make = (name: string, configure: (target: Agent) => Handoff<string>) => {
      const target = scripted(name, [say(`${name} done`)]);
      const source = scripted(`${name} source`, [call(`transfer_to_${name}`, { id: 'T-1' })], {
        plugins: [handoffs([configure(target.agent)])],
      });
      return source.agent;
    };
    const describeData = (d: HandoffInputData) =>
      `${d.source}>${d.target} ctx=${d.context.length} out=${d.output.length}`;
    const ctxOnly = make('a', (t) =>
      handoff(t, { onHandoff: (ctx: HandoffRunContext<string>) => void calls.push(`ctx:${ctx.context}`) }),
    );
    const withData = make('b', (t) =>
      handoff(t, {
        onHandoff: (_ctx: HandoffRunContext<string>, data) => void calls.push(`data:${describeData(data)}`),
      }),
    );
    const withInput = make('c', (t) =>
      handoff(t, {
        inputType: Ticket,
        onHandoff: (_ctx: HandoffRunContext<string>, input) => void calls.push(`input:${input.id}`),
      }),
    );
    const withBoth = make('d', (t) =>
      handoff(t, {
        inputType: Ticket,
        onHandoff: (_ctx: HandoffRunContext<string>, input, data) =>
          void calls.push(`both:${input.id}:${describeData(data)}`),
      }),
    );

    for (const agent of [ctxOnly, withData, withInput, withBoth])
      await runWithHandoffs(agent, 'go', { context: 'C' });

    expect(calls).toEqual([
      'ctx:C',
      // mid-turn: output so far ends with the assistant message carrying the transfer call
      'data:b source>b ctx=1 out=1',
      'input:T-1',
      'both:T-1:d source>d ctx=1 out=1',
    ]);
  });

  it('an onHandoff that throws raises, or is reported to the model, per onError', async () => {
    const boom = () => {
      throw new Error('crm down');
    };
    const target = scripted('T', [say('-')]);
    const raising = scripted('S', [call('transfer_to_t')], {
      plugins: [handoffs([handoff(target.agent, { onHandoff: boom })])],
    });
    await expect(runWithHandoffs(raising.agent, 'x')).rejects.toThrow(HandoffCallbackError);

    const target2 = scripted('T', [say('-')]);
    const reporting = scripted('S2', [call('transfer_to_t'), say('ok, I will handle it')], {
      plugins: [
        handoffs([handoff(target2.agent, { onHandoff: boom, policy: { onError: 'rejectWithMessage' } })]),
      ],
    });
    const result = await runWithHandoffs(reporting.agent, 'x');
    expect(lastResults(reporting.model.calls[1]!.messages)[0]!.text).toContain('crm down');
    expect(result.lastAgent).toBe(reporting.agent);
  });
});
