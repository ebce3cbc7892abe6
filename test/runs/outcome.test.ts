import { describe, expect, it } from '@jest/globals';
import type { Interrupt, JSONValue } from '@strands-agents/sdk';
import { MultiAgentResult, NodeResult, Status } from '@strands-agents/sdk/multiagent';
import { DECISIONS_INTERRUPT } from '../../shared/gate/gate-hook.ts';
import { DISPATCH_INTERRUPT } from '../../shared/runs/dispatch.ts';
import { interpret, interpretThrown } from '../../shared/runs/outcome.ts';

function raised(name: string, reason: JSONValue): Interrupt {
  const data = { id: `int-${name}`, name, reason, source: 'hook' as const };
  return { ...data, toJSON: () => data };
}

function interrupted(interrupt: Interrupt): MultiAgentResult {
  const node = new NodeResult({
    nodeId: 'executor',
    status: Status.INTERRUPTED,
    duration: 1,
    interrupts: [interrupt],
  });
  return new MultiAgentResult({ results: [node], duration: 1, interrupts: [interrupt] });
}

function completed(trigger: JSONValue): MultiAgentResult {
  const node = new NodeResult({
    nodeId: 'trigger',
    status: Status.COMPLETED,
    duration: 1,
    structuredOutput: trigger,
  });
  return new MultiAgentResult({ results: [node], duration: 1 });
}

describe('reading a graph result as an outcome', () => {
  it('names the next node of a dispatch, and fails a dispatch to a node no process runs', () => {
    expect(interpret(interrupted(raised(DISPATCH_INTERRUPT, { node: 'completer' })), false)).toEqual({
      kind: 'dispatch-next',
      node: 'completer',
      interruptId: `int-${DISPATCH_INTERRUPT}`,
    });
    expect(interpret(interrupted(raised(DISPATCH_INTERRUPT, { node: 'trigger' })), false)).toEqual({
      kind: 'fail',
      reason: 'cannot dispatch to node trigger',
    });
  });

  it('pauses on the decisions interrupt with its item ids, and fails one whose reason is not that shape', () => {
    expect(interpret(interrupted(raised(DECISIONS_INTERRUPT, { item_ids: ['a', 'b'] })), false)).toEqual({
      kind: 'pause',
      interruptId: `int-${DECISIONS_INTERRUPT}`,
      itemIds: ['a', 'b'],
    });
    expect(interpret(interrupted(raised(DECISIONS_INTERRUPT, { items: 'a' })), false)).toMatchObject({
      kind: 'fail',
    });
    expect(interpret(interrupted(raised('something_else', null)), false)).toEqual({
      kind: 'fail',
      reason: 'the run paused without a decisions interrupt',
    });
  });

  it('finishes a triggered or resumed run and skips one its trigger found nothing for', () => {
    expect(interpret(completed({ triggered: true, reason: 'new mail' }), false)).toEqual({ kind: 'finish' });
    expect(interpret(completed({ triggered: false, reason: 'no new mail' }), false)).toEqual({
      kind: 'skip',
      reason: 'no new mail',
    });
    expect(interpret(completed(null), true)).toEqual({ kind: 'finish' });
  });

  it('fails with the node’s error, or the error the graph threw', () => {
    const node = new NodeResult({
      nodeId: 'executor',
      status: Status.FAILED,
      duration: 1,
      error: new Error('model down'),
    });
    expect(interpret(new MultiAgentResult({ results: [node], duration: 1 }), false)).toEqual({
      kind: 'fail',
      reason: 'model down',
    });
    expect(interpretThrown(new Error('boom'))).toEqual({ kind: 'fail', reason: 'boom' });
  });
});
