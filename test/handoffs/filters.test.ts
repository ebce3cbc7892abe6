import { Message, TextBlock, ToolResultBlock, ToolUseBlock } from '@strands-agents/sdk';
import { describe, expect, it } from '@jest/globals';
import {
  HandoffConfigError,
  HandoffInputData,
  applyBudget,
  compose,
  estimateTokens,
  handoff,
  handoffs,
  keepLastN,
  removeToolCalls,
  runWithHandoffs,
} from '../../shared/handoffs/index.ts';
import { call, say, scripted, textsOf } from './support.ts';

const text = (role: 'user' | 'assistant', t: string) => new Message({ role, content: [new TextBlock(t)] });
const use = (id: string, name = 'lookup') =>
  new Message({
    role: 'assistant',
    content: [new TextBlock(`calling ${name}`), new ToolUseBlock({ name, toolUseId: id, input: {} })],
  });
const result = (id: string) =>
  new Message({
    role: 'user',
    content: [new ToolResultBlock({ toolUseId: id, status: 'success', content: [new TextBlock('ok')] })],
  });

function sample(): HandoffInputData {
  return new HandoffInputData({
    source: 'a',
    target: 'b',
    context: [text('user', 'u1'), text('assistant', 'a1')],
    output: [
      text('user', 'u2'),
      use('t1'),
      result('t1'),
      text('assistant', 'a2'),
      use('t2', 'transfer_to_b'),
      result('t2'),
    ],
  });
}

const ids = (messages: readonly Message[]) =>
  messages.map((m) => m.content.map((b) => (b.type === 'textBlock' ? b.text : b.type)).join('+'));

describe('HandoffInputData', () => {
  it('is frozen, separates context from output, and .messages is both', () => {
    const data = sample();
    expect(Object.isFrozen(data)).toBe(true);
    expect(Object.isFrozen(data.context)).toBe(true);
    expect(Object.isFrozen(data.output[1]!.content[0])).toBe(true);
    expect(data.messages).toHaveLength(8);
    expect(data.forwarded).toBeUndefined();
    expect(data.current).toEqual(data.messages);
    expect(() => (data.context as Message[]).push(text('user', 'x'))).toThrow(TypeError);
  });

  it('clone replaces forwarded and shares the audit trail', () => {
    const data = sample();
    const next = data.clone({ forwarded: [data.context[0]!] });
    expect(next.context).toBe(data.context);
    expect(next.output).toBe(data.output);
    expect(ids(next.current)).toEqual(['u1']);
  });
});

describe('built-in filters', () => {
  it('keepLastN keeps the n most recent, never opening on an orphaned tool result', () => {
    const data = sample();
    expect(ids(keepLastN(3)(data).forwarded!)).toEqual([
      'a2',
      'calling transfer_to_b+toolUseBlock',
      'toolResultBlock',
    ]);
    // the most recent one is t2's result without its call: it is dropped
    expect(ids(keepLastN(1)(data).forwarded!)).toEqual([]);
    expect(keepLastN(0)(data).forwarded).toEqual([]);
    expect(() => keepLastN(-1)).toThrow(RangeError);
  });

  it('removeToolCalls drops tool calls and results, keeping the text around them', async () => {
    const out = await removeToolCalls(sample());
    expect(ids(out.forwarded!)).toEqual(['u1', 'a1', 'u2', 'calling lookup', 'a2', 'calling transfer_to_b']);
  });

  it('compose runs left to right, each reading what the previous forwarded', async () => {
    const data = sample();
    const a = await compose(removeToolCalls, keepLastN(2))(data);
    expect(ids(a.forwarded!)).toEqual(['a2', 'calling transfer_to_b']);
    const b = await compose(keepLastN(2), removeToolCalls)(data);
    expect(ids(b.forwarded!)).toEqual(['calling transfer_to_b']);
  });

  it('never mutates context or output', async () => {
    const data = sample();
    const before = JSON.stringify({ c: data.context, o: data.output });
    await compose(removeToolCalls, keepLastN(2), removeToolCalls, keepLastN(1))(data);
    expect(JSON.stringify({ c: data.context, o: data.output })).toBe(before);
  });
});

describe('context policy', () => {
  it('budget keeps the most recent messages within the token estimate', () => {
    const messages = [text('user', 'x'.repeat(400)), text('assistant', 'short'), text('user', 'also short')];
    const cost = estimateTokens(messages[1]!) + estimateTokens(messages[2]!);
    expect(ids(applyBudget(messages, cost))).toEqual(['short', 'also short']);
    expect(applyBudget(messages, 0)).toEqual([]);
  });

  it('applies budget, then the filter, then collapse, in a run', async () => {
    const seenByFilter: string[][] = [];
    const target = scripted('Specialist', [say('on it')]);
    const source = scripted('Collector', [call('transfer_to_specialist')], {
      plugins: [
        handoffs([
          handoff(target.agent, {
            policy: { budget: 200, collapse: true },
            inputFilter: (data) => {
              seenByFilter.push(ids(data.current));
              return removeToolCalls(data);
            },
          }),
        ]),
      ],
    });
    source.agent.messages.push(text('user', 'old question '.repeat(40)), text('assistant', 'old answer'));

    const run = await runWithHandoffs(source.agent, 'new question');

    // the budget cut the long old question; the filter saw the cut
    expect(seenByFilter[0]!.join('|')).not.toContain('old question');
    expect(seenByFilter[0]).toContain('new question');
    const seen = target.model.calls[0]!.messages;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.role).toBe('user');
    const collapsed = textsOf(seen)[0]!;
    expect(collapsed).toContain('Collector handed this conversation to Specialist');
    expect(collapsed).not.toContain('transfer_to_specialist'); // removed by the filter before collapse
    // the audit trail still has everything
    expect(run.handoffs[0]!.context).toHaveLength(3);
    expect(ids(run.handoffs[0]!.context)[0]).toContain('old question');
  });

  it('appends a user turn when the forwarded slice ends with the assistant', async () => {
    const target = scripted('B', [say('hi from B')]);
    const source = scripted('A', [call('transfer_to_b')], {
      plugins: [handoffs([handoff(target.agent, { inputFilter: removeToolCalls })])],
    });
    await runWithHandoffs(source.agent, 'hello');
    const seen = target.model.calls[0]!.messages;
    expect(seen.map((m) => m.role)).toEqual(['user']); // the transfer-only assistant turn is gone entirely
    expect(textsOf(seen)).toEqual(['hello']);

    const noHistory = scripted('C', [say('fresh')]);
    const src2 = scripted('A2', [call('transfer_to_c')], {
      plugins: [handoffs([handoff(noHistory.agent, { inputFilter: keepLastN(0) })])],
    });
    await runWithHandoffs(src2.agent, 'hello');
    expect(textsOf(noHistory.model.calls[0]!.messages)[0]).toContain(
      'A2 transferred this conversation to you',
    );
  });

  it('refuses a filter that builds its own data instead of cloning', async () => {
    const target = scripted('B', [say('x')]);
    const source = scripted('A', [call('transfer_to_b')], {
      plugins: [
        handoffs([
          handoff(target.agent, {
            inputFilter: (data) =>
              new HandoffInputData({ source: 'a', target: 'b', context: [], output: data.output }),
          }),
        ]),
      ],
    });
    await expect(runWithHandoffs(source.agent, 'hi')).rejects.toBeInstanceOf(HandoffConfigError);
  });
});
