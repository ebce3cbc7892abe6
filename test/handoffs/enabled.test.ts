import { type Agent } from '@strands-agents/sdk';
import { describe, expect, it } from '@jest/globals';
import {
  HandoffCallbackError,
  handoff,
  handoffs,
  runWithHandoffs,
  type HandoffRunContext,
} from '../../shared/handoffs/index.ts';
import { call, lastResults, say, scripted } from './support.ts';

type Tier = { tier: 'premium' | 'basic' };
const premiumOnly = (ctx: HandoffRunContext<Tier>) => ctx.context.tier === 'premium';

function setup() {
  const priority = scripted('Priority Support', [say('priority here')]);
  const general = scripted('General', [say('general here')]);
  const triage = scripted(
    'Triage',
    (results) => {
      if (results.length === 0) return call('transfer_to_priority_support');
      if (results[0]!.name === 'transfer_to_priority_support') return call('transfer_to_general');
      return say('stuck');
    },
    {
      plugins: [
        handoffs([
          handoff(priority.agent, { description: 'Premium users only.', enabled: premiumOnly }),
          general.agent,
        ]),
      ],
    },
  );
  return { priority, general, triage };
}

describe('enabled: conditional handoffs', () => {
  it('offers an enabled target', async () => {
    const { triage, priority } = setup();
    const result = await runWithHandoffs(triage.agent, 'help', {
      context: { tier: 'premium' } satisfies Tier,
    });
    expect(triage.model.calls[0]!.tools).toEqual(['transfer_to_priority_support', 'transfer_to_general']);
    expect(result.lastAgent).toBe(priority.agent);
  });

  it('removes a disabled target from the tools the model sees, and refuses a call to it', async () => {
    const { triage, priority, general } = setup();
    const result = await runWithHandoffs(triage.agent, 'help', { context: { tier: 'basic' } satisfies Tier });
    expect(triage.model.calls[0]!.tools).toEqual(['transfer_to_general']);
    // the (misbehaving) model called it anyway: refused with a message, and it carried on
    expect(lastResults(triage.model.calls[1]!.messages)[0]).toMatchObject({ status: 'error' });
    expect(lastResults(triage.model.calls[1]!.messages)[0]!.text).toContain('not available');
    expect(priority.model.calls).toHaveLength(0);
    expect(result.lastAgent).toBe(general.agent);
  });

  it('is checked before every turn, and told (ctx) from (ctx, agent) by arity', async () => {
    const seen: string[] = [];
    const target = scripted('Target', [say('t')]);
    let turns = 0;
    const source = scripted('Source', (_r, _i, n) => (n < 2 ? call('noop') : call('transfer_to_target')), {
      tools: [
        (await import('@strands-agents/sdk')).tool({
          name: 'noop',
          description: 'noop',
          callback: () => 'ok',
        }),
      ],
      plugins: [
        handoffs([
          handoff(target.agent, {
            enabled: (ctx: HandoffRunContext, agent: Agent) => {
              seen.push(`${agent.name}:${ctx.handoffCount}`);
              return ++turns >= 3;
            },
          }),
        ]),
      ],
    });

    const result = await runWithHandoffs(source.agent, 'go');

    expect(source.model.calls.map((c) => c.tools)).toEqual([
      ['noop'],
      ['noop'],
      ['noop', 'transfer_to_target'],
    ]);
    expect(seen).toEqual(['Source:0', 'Source:0', 'Source:0']);
    expect(result.lastAgent).toBe(target.agent);
  });

  it('a boolean false hides the target for good', async () => {
    const target = scripted('Off', [say('-')]);
    const source = scripted('S', [say('done')], {
      plugins: [handoffs([handoff(target.agent, { enabled: false })])],
    });
    await runWithHandoffs(source.agent, 'x');
    expect(source.model.calls[0]!.tools).toEqual([]);
  });

  it('an enabled check that throws fails the run', async () => {
    const target = scripted('T', [say('-')]);
    const source = scripted('S', [say('never')], {
      plugins: [
        handoffs([
          handoff(target.agent, {
            enabled: () => {
              throw new Error('no tier service');
            },
          }),
        ]),
      ],
    });
    await expect(runWithHandoffs(source.agent, 'x')).rejects.toThrow(HandoffCallbackError);
  });
});
