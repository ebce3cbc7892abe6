import { describe, expect, it } from '@jest/globals';
import { classifyProviderError, parseRetryAfter } from '../../../shared/models/provider-errors.ts';
import { recoverToolCalls, repairArguments } from '../../../shared/models/tool-call-repair.ts';

const TOOLS = ['submit_action', 'fetch_items', 'finish_batch'];

describe('repairArguments', () => {
  it('leaves valid JSON alone', () => {
    expect(repairArguments('{"item_id": "x", "confidence": 0.9}')).toEqual({
      value: { item_id: 'x', confidence: 0.9 },
      fixes: [],
    });
    expect(repairArguments('')).toEqual({ value: {}, fixes: [] });
  });

  it('reads a stray quote after a number as the number, not the string "0.9"', () => {
    expect(repairArguments('{"item_id": "x", "confidence": 0.9"}')).toEqual({
      value: { item_id: 'x', confidence: 0.9 },
      fixes: ['stray quote after a number'],
    });
    expect(repairArguments('{"confidence": 0.9", "reasoning": "score: 5", "n": [1, 2"]}')?.value).toEqual({
      confidence: 0.9,
      reasoning: 'score: 5',
      n: [1, 2],
    });
  });

  it('fixes trailing commas, single quotes, an unclosed brace and double encoding', () => {
    expect(repairArguments('{"item_id": "x", "confidence": 0.9,}')).toEqual({
      value: { item_id: 'x', confidence: 0.9 },
      fixes: ['trailing comma'],
    });
    expect(repairArguments("{'item_id': 'x', 'confidence': 0.9}")).toEqual({
      value: { item_id: 'x', confidence: 0.9 },
      fixes: ['single quotes'],
    });
    expect(repairArguments('{"item_id": "x", "reasoning": "looks fine"')).toEqual({
      value: { item_id: 'x', reasoning: 'looks fine' },
      fixes: ['unclosed brace'],
    });
    expect(repairArguments('"{\\"item_id\\": \\"x\\"}"')).toEqual({
      value: { item_id: 'x' },
      fixes: ['double-encoded JSON'],
    });
  });

  it('refuses what is not an object', () => {
    expect(repairArguments('just some words')).toBeNull();
    expect(repairArguments('[1, 2]')).toBeNull();
    expect(repairArguments('42')).toBeNull();
  });
});

describe('recoverToolCalls (Groq failed_generation)', () => {
  it.each([
    [
      '<function=submit_action>{"item_id": "a", "confidence": 0.9"}</function>',
      { item_id: 'a', confidence: 0.9 },
    ],
    [
      '<function=submit_action{"item_id": "a", "confidence": 0.9}></function>',
      { item_id: 'a', confidence: 0.9 },
    ],
    [
      '<function=submit_action={"item_id": "a", "confidence": 0.9}</function>',
      { item_id: 'a', confidence: 0.9 },
    ],
    [
      '<function=submit_action{"item_id": "a", "confidence": 0.9}</function>',
      { item_id: 'a', confidence: 0.9 },
    ],
    ['<function=submit_action>{"item_id": "a", "confidence": 0.9}', { item_id: 'a', confidence: 0.9 }],
    ['submit_action{"item_id": "a", "confidence": 0.9}</function>', { item_id: 'a', confidence: 0.9 }],
    ['<function=finish_batch></function>', {}],
    [
      '{"name": "submit_action", "parameters": {"item_id": "a", "confidence": 0.9}}',
      { item_id: 'a', confidence: 0.9 },
    ],
    ['{"type": "function", "name": "submit_action", "parameters": {"item_id": "a"}}', { item_id: 'a' }],
    [
      '```\n{\n  "tool_calls": [{"id": "pending", "type": "function", "function": {"name": "submit_action"}, "parameters": {"item_id": "a"}}]\n}\n```',
      { item_id: 'a' },
    ],
    [
      '{"tool_call": {"id": "pending", "type": "function", "function": {"name": "submit_action"}, "parameters": {"item_id": "a"}}}</tool-use>',
      { item_id: 'a' },
    ],
    [
      '<tool_call>{"name": "submit_action", "arguments": "{\\"item_id\\": \\"a\\"}"}</tool_call>',
      { item_id: 'a' },
    ],
  ])('reads %s', (generation, input) => {
    const recovered = recoverToolCalls(generation, TOOLS);
    expect(recovered?.calls).toHaveLength(1);
    expect(recovered?.calls[0]!.input).toEqual(input);
  });

  it('reads several calls in a row, in order', () => {
    const recovered = recoverToolCalls(
      '<function=submit_action>{"item_id": "a", "confidence": 0.9"}</function>\n<function=submit_action>{\'item_id\': \'b\', \'confidence\': 0.3}</function><function=finish_batch>{}</function>',
      TOOLS,
    );
    expect(recovered).toEqual({
      calls: [
        { name: 'submit_action', input: { item_id: 'a', confidence: 0.9 } },
        { name: 'submit_action', input: { item_id: 'b', confidence: 0.3 } },
        { name: 'finish_batch', input: {} },
      ],
      fixes: ['<function=…> tag', 'stray quote after a number', 'single quotes'],
    });
    expect(
      recoverToolCalls(
        '[{"name": "fetch_items", "parameters": {}}, {"name": "finish_batch", "parameters": {}}]',
        TOOLS,
      )?.calls.map((c) => c.name),
    ).toEqual(['fetch_items', 'finish_batch']);
  });

  it('trusts nothing it cannot read whole: no call, an unknown tool, or arguments past repair', () => {
    expect(recoverToolCalls('', TOOLS)).toBeNull();
    expect(
      recoverToolCalls('Tool use failed: JSON does not match the expected schema for tool calls', TOOLS),
    ).toBeNull();
    expect(recoverToolCalls('I think the answer is to archive it.', TOOLS)).toBeNull();
    expect(recoverToolCalls('<function=delete_everything>{}</function>', TOOLS)).toBeNull();
    expect(
      recoverToolCalls('<function=submit_action>{}</function><function=rm_rf>{}</function>', TOOLS),
    ).toBeNull();
    expect(recoverToolCalls('<function=submit_action>item x, very sure</function>', TOOLS)).toBeNull();
    expect(recoverToolCalls('{"name": "submit_action", "parameters": "not json at all"}', TOOLS)).toBeNull();
  });
});

describe('what a provider error says', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1500', now, 'ms')).toBe(1500);
  });

  it('finds status, Retry-After and failed_generation through re-wrapped causes', () => {
    const openaiError = Object.assign(new Error('429 Rate limit'), {
      status: 429,
      headers: new Headers({ 'retry-after': '3' }),
      error: { message: 'Rate limit', code: 'rate_limit_exceeded' },
    });
    const wrapped = new Error('Request was throttled', { cause: openaiError });
    expect(classifyProviderError(wrapped, now)).toMatchObject({
      kind: 'throttled',
      status: 429,
      retryAfterMs: 3000,
    });

    const groq = Object.assign(new Error('400 Failed to call a function'), {
      status: 400,
      error: { code: 'tool_use_failed', failed_generation: '<function=x>{}</function>' },
    });
    expect(classifyProviderError(groq, now)).toMatchObject({
      kind: 'tool_use_failed',
      failedGeneration: '<function=x>{}</function>',
    });

    const anthropic = Object.assign(new Error('Overloaded'), {
      error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    expect(classifyProviderError(anthropic, now).kind).toBe('server_error');

    const aws = Object.assign(new Error('Service unavailable'), {
      name: 'ServiceUnavailableException',
      $metadata: { httpStatusCode: 503 },
      $response: { headers: { 'Retry-After': '4' } },
    });
    expect(classifyProviderError(aws, now)).toMatchObject({
      kind: 'server_error',
      status: 503,
      retryAfterMs: 4000,
    });

    expect(classifyProviderError(Object.assign(new Error('bad'), { status: 400 }), now).kind).toBe('other');
    expect(classifyProviderError(Object.assign(new Error('aborted'), { name: 'AbortError' }), now).kind).toBe(
      'other',
    );
    expect(classifyProviderError(Object.assign(new Error('socket'), { code: 'ECONNRESET' }), now).kind).toBe(
      'connection',
    );
  });
});
