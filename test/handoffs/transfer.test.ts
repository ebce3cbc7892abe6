import { describe, expect, it } from '@jest/globals';
import {
  HandoffLimitError,
  agentPath,
  handoff,
  handoffOccurred,
  handoffs,
  runWithHandoffs,
  withHandoffs,
  type HandoffCallItem,
} from '../../shared/handoffs/index.ts';
import { call, lastResults, say, scripted, textsOf } from './support.ts';

describe('a handoff is a one-way transfer', () => {
  it('continues in the target, never returns to the source, and leaves a call/output pair', async () => {
    const billing = scripted('Billing', [say('Billing here: your invoice is fixed.')]);
    const triage = scripted('Triage', [call('transfer_to_billing'), say('triage should never speak again')], {
      plugins: [handoffs([billing.agent])],
    });

    const result = await runWithHandoffs(triage.agent, 'I was charged twice.');

    expect(result.lastAgent).toBe(billing.agent);
    expect(result.output).toBe('Billing here: your invoice is fixed.');
    expect(result.stopReason).toBe('endTurn');
    expect(triage.model.calls).toHaveLength(1); // control never came back
    expect(billing.model.calls).toHaveLength(1);
    expect(result.newItems.map((i) => i.type)).toEqual(['handoff_call', 'handoff_output', 'message']);
    const [callItem, outputItem, message] = result.newItems;
    expect(callItem).toMatchObject({ source: 'Triage', target: 'Billing', via: 'tool', agent: 'Triage' });
    expect(outputItem).toMatchObject({
      source: 'Triage',
      target: 'Billing',
      toolUseId: (callItem as HandoffCallItem).toolUseId,
    });
    expect(message).toMatchObject({ agent: 'Billing', role: 'assistant' });
    expect(result.handoffCount).toBe(1);
    expect(handoffOccurred(result, 'Triage', 'Billing')).toBe(true);
  });

  it('forwards the whole history by default, ending with the transfer result', async () => {
    const billing = scripted('Billing', [say('ok')]);
    const triage = scripted('Triage', [call('transfer_to_billing')], {
      plugins: [handoffs([billing.agent])],
    });

    await runWithHandoffs(triage.agent, 'hello');

    const seen = billing.model.calls[0]!.messages;
    expect(seen.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textsOf(seen)).toEqual(['hello']);
    expect(lastResults(seen)[0]).toMatchObject({ status: 'success' });
    expect(lastResults(seen)[0]!.text).toContain('"assistant":"Billing"');
    // The source's own history records the transfer and ends its turn.
    expect(textsOf(triage.agent.messages).at(-1)).toBe('Transferred to Billing.');
    // The target has no transfer tools of its own; the source's transfer tool is not leaked.
    expect(billing.model.calls[0]!.tools).toEqual([]);
  });

  it('chains: A → B → C, with a pair per handoff', async () => {
    const c = scripted('Agent C', [say('C done')]);
    const b = scripted('Agent B', [call('transfer_to_agent_c')], { plugins: [handoffs([c.agent])] });
    const a = scripted('Agent A', [call('transfer_to_agent_b')], { plugins: [handoffs([b.agent])] });

    const result = await runWithHandoffs(a.agent, 'go');

    expect(result.lastAgent).toBe(c.agent);
    expect(handoffOccurred(result, a.agent, b.agent)).toBe(true);
    expect(handoffOccurred(result, 'Agent B', 'Agent C')).toBe(true);
    expect(handoffOccurred(result, 'Agent A', 'Agent C')).toBe(false);
    expect(agentPath(result.newItems, a.agent)).toEqual(['Agent A', 'Agent B', 'Agent C']);
    expect(result.handoffs.map((d) => `${d.source}->${d.target}`)).toEqual([
      'Agent A->Agent B',
      'Agent B->Agent C',
    ]);
    // B inherited A's history (context) and produced only its transfer (output).
    expect(result.handoffs[1]!.context).toHaveLength(3);
    expect(result.handoffs[1]!.output.map((m) => m.role)).toEqual(['assistant', 'user']);
  });

  it('supports cycles wired after construction, and stops at maxHandoffs', async () => {
    const ping = scripted('ping', [call('transfer_to_pong')]);
    const pong = scripted('pong', [call('transfer_to_ping')]);
    withHandoffs(ping.agent, [pong.agent]);
    withHandoffs(pong.agent, [ping.agent]);

    await expect(runWithHandoffs(ping.agent, 'loop', { maxHandoffs: 3 })).rejects.toBeInstanceOf(
      HandoffLimitError,
    );
    expect(ping.model.calls.length + pong.model.calls.length).toBe(4);
  });

  it('takes one handoff per turn: a second transfer in the same turn is refused', async () => {
    const x = scripted('x', [say('x here')]);
    const y = scripted('y', [say('y here')]);
    const src = scripted(
      'src',
      [
        {
          toolCalls: [
            { name: 'transfer_to_x', input: {} },
            { name: 'transfer_to_y', input: {} },
          ],
        },
      ],
      {
        plugins: [handoffs([x.agent, y.agent])],
        toolExecutor: 'sequential',
      },
    );

    const result = await runWithHandoffs(src.agent, 'both?');

    expect(result.lastAgent).toBe(x.agent);
    expect(y.model.calls).toHaveLength(0);
    const refused = result.newItems.find((i) => i.type === 'tool_output');
    expect(refused).toMatchObject({ name: 'transfer_to_y', status: 'error' });
    expect(JSON.stringify(refused)).toContain('Only one handoff per turn');
  });

  it('refuses a transfer when the agent is invoked directly, outside a handoff run', async () => {
    const target = scripted('target', [say('never')]);
    const src = scripted(
      'src',
      (results) => (results.length === 0 ? call('transfer_to_target') : say('alone')),
      {
        plugins: [handoffs([handoff(target.agent)])],
      },
    );

    const result = await src.agent.invoke('hi');

    expect(result.stopReason).toBe('endTurn');
    expect(src.model.calls[0]!.tools).toEqual([]); // not offered outside a run
    expect(lastResults(src.model.calls[1]!.messages)[0]!.text).toContain('runWithHandoffs');
    expect(target.model.calls).toHaveLength(0);
  });

  it('keeps ordinary tool calls as tool items alongside the handoff', async () => {
    const { tool } = await import('@strands-agents/sdk');
    const lookup = tool({
      name: 'lookup_order',
      description: 'Find an order',
      callback: () => ({ status: 'paid' }),
    });
    const refunds = scripted('Refunds', [say('refunded')]);
    const triage = scripted('Triage', [call('lookup_order'), call('transfer_to_refunds')], {
      tools: [lookup],
      plugins: [handoffs([refunds.agent])],
    });

    const result = await runWithHandoffs(triage.agent, 'refund #1');

    expect(result.newItems.map((i) => i.type)).toEqual([
      'tool_call',
      'tool_output',
      'handoff_call',
      'handoff_output',
      'message',
    ]);
    expect(result.newItems[1]).toMatchObject({ name: 'lookup_order', output: { status: 'paid' } });
  });
});
