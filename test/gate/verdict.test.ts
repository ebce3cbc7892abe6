import { describe, expect, it } from '@jest/globals';
import { judge, normaliseConfidence, type GatePolicy } from '../../shared/gate/verdict.ts';
import type { Rule } from '../../shared/records/rule.ts';

const policy: GatePolicy = {
  threshold: 0.7,
  actions: new Map([
    ['archive', { irreversible: false }],
    ['file_ticket', { irreversible: false }],
    ['delete', { irreversible: true }],
  ]),
};

function rule(action: string, source: 'you' | 'learned' = 'you'): Rule {
  return {
    id: 'rule_1',
    workflow_id: null,
    source_key: null,
    scope: 'source',
    match: { domain: 'vendor.com' },
    action,
    source,
    note: null,
    confidence: 1,
    decision_id: null,
    item_id: null,
    superseded_by: null,
    pattern: null,
    mirror_ids: [],
    created_at: '2026-01-01T00:00:00Z',
    deleted_at: null,
  };
}

describe('the gate', () => {
  it('acts when a declared, reversible action is at or above the threshold', () => {
    expect(
      judge({ action: 'archive', confidence: 0.7, forceInterrupt: undefined }, policy, undefined),
    ).toEqual({
      kind: 'act',
      action: 'archive',
      confidence: 0.7,
    });
  });

  it('defers below the threshold', () => {
    const verdict = judge(
      { action: 'archive', confidence: 0.69, forceInterrupt: undefined },
      policy,
      undefined,
    );
    expect(verdict).toMatchObject({ kind: 'defer', reason: 'low_confidence' });
  });

  it('defers when the model forces an interrupt, however sure it is', () => {
    const verdict = judge({ action: 'archive', confidence: 0.95, forceInterrupt: true }, policy, undefined);
    expect(verdict).toMatchObject({ kind: 'defer', reason: 'force_interrupt' });
  });

  it('always asks before an irreversible action, whatever the confidence', () => {
    expect(
      judge({ action: 'delete', confidence: 1, forceInterrupt: false }, policy, undefined),
    ).toMatchObject({
      kind: 'defer',
      reason: 'irreversible',
    });
  });

  it('applies a covering rule first and stamps it as memory', () => {
    const verdict = judge(
      { action: 'file_ticket', confidence: 0.1, forceInterrupt: true },
      policy,
      rule('archive'),
    );
    expect(verdict).toMatchObject({ kind: 'rewrite', action: 'archive', confidence: 1 });
  });

  it('still asks when a rule would do something irreversible', () => {
    const verdict = judge(
      { action: 'archive', confidence: 0.9, forceInterrupt: false },
      policy,
      rule('delete'),
    );
    expect(verdict).toMatchObject({ kind: 'defer', reason: 'irreversible', action: 'delete' });
  });

  it('ignores a rule whose action this workflow does not declare, and judges the call itself', () => {
    const verdict = judge(
      { action: 'archive', confidence: 0.9, forceInterrupt: false },
      policy,
      rule('label'),
    );
    expect(verdict).toEqual({ kind: 'act', action: 'archive', confidence: 0.9 });
  });

  it('defers an action the workflow does not declare', () => {
    expect(
      judge({ action: 'forward', confidence: 0.99, forceInterrupt: false }, policy, undefined),
    ).toMatchObject({
      kind: 'defer',
      reason: 'unknown_action',
    });
    expect(
      judge({ action: undefined, confidence: 0.99, forceInterrupt: false }, policy, undefined),
    ).toMatchObject({
      kind: 'defer',
      reason: 'unknown_action',
    });
  });

  it.each([
    ['NaN', Number.NaN],
    ['a string that looks like a number', '0.9'],
    ['a word', 'high'],
    ['missing', undefined],
    ['null', null],
    ['above one', 1.5],
    ['negative', -0.2],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an object', { value: 0.9 }],
  ])('counts a malformed confidence (%s) as 0, so the item is asked about', (_label, confidence) => {
    expect(normaliseConfidence(confidence)).toBe(0);
    expect(
      judge({ action: 'archive', confidence, forceInterrupt: undefined }, policy, undefined),
    ).toMatchObject({
      kind: 'defer',
      confidence: 0,
      reason: 'low_confidence',
    });
  });

  it('reads a malformed force_interrupt flag as a request to ask', () => {
    for (const flag of ['yes', 'true', 1, {}]) {
      expect(
        judge({ action: 'archive', confidence: 0.9, forceInterrupt: flag }, policy, undefined),
      ).toMatchObject({
        kind: 'defer',
        reason: 'force_interrupt',
      });
    }
    expect(judge({ action: 'archive', confidence: 0.9, forceInterrupt: false }, policy, undefined).kind).toBe(
      'act',
    );
    expect(judge({ action: 'archive', confidence: 0.9, forceInterrupt: null }, policy, undefined).kind).toBe(
      'act',
    );
  });
});
