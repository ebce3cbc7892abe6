/** The words a person reads about a run's outcome and about an answer: one sentence, one name each. */
import { describe, expect, it } from '@jest/globals';
import { EMPTY_COUNTS, type Decision, type RunCounts } from '../../shared/records/runs.ts';
import { countsOf, countsOfRuns, describeCounts } from '../../shared/runs/counts.ts';
import { actionDone, describeAnswer } from '../../shared/runs/views.ts';

const counts = (c: Partial<RunCounts>): RunCounts => ({ ...EMPTY_COUNTS, ...c });

function answered(action: string, by: 'human' | 'expired' | 'unreachable' = 'human') {
  const status: Decision['status'] = by === 'human' ? 'answered' : 'expired';
  return {
    status,
    suggested_action: 'archive',
    answer: { action, note: null, by, at: '2026-01-01T00:00:00Z' },
  };
}

describe('the outcome sentence', () => {
  it('names who acted, and the parts add up to what was acted on', () => {
    const run = counts({ acted: 10, confident: 7, by_you: 3, deferred: 6, declined: 3 });
    expect(describeCounts(run)).toBe('10 acted (7 confident, 0 by rules, 3 by you), 6 asked, 3 left alone');
    const c = countsOf(run);
    expect(c.confident + c.by_rules + c.by_you).toBe(c.acted);
  });

  it('splits rules into yours and learned ones, and says what failed', () => {
    const run = counts({
      acted: 6,
      confident: 2,
      by_your_rules: 1,
      by_learned_rules: 2,
      by_you: 1,
      failed: 1,
    });
    expect(describeCounts(run)).toBe(
      '6 acted (2 confident, 1 by your rules, 2 by learned rules, 1 by you), 0 asked, 0 left alone, 1 failed',
    );
    expect(describeCounts(counts({ acted: 2, by_learned_rules: 2 }))).toBe(
      '2 acted (0 confident, 2 by learned rules, 0 by you), 0 asked, 0 left alone',
    );
  });

  it('counts what a rule decided once: acted on, or left alone (with what others left alone)', () => {
    const run = counts({ acted: 3, confident: 1, by_learned_rules: 3, by_you: 0, declined: 1 });
    expect(describeCounts(run)).toBe(
      '3 acted (1 confident, 2 by learned rules, 0 by you), 0 asked, 2 left alone (1 by rules)',
    );
    const c = countsOf(run);
    expect(c.by_rules + c.left_alone_by_rules).toBe(run.by_your_rules + run.by_learned_rules);
    expect(c.left_alone).toBe(run.declined + c.left_alone_by_rules);
    expect(c.confident + c.by_rules + c.by_you).toBe(c.acted);
  });

  it('adds several runs up, each counted on its own, so the parts still add up', () => {
    const runs = [
      { counts: counts({ acted: 2, confident: 2 }) },
      { counts: counts({ acted: 1, deferred: 1, by_you: 1 }) },
      { counts: counts({ by_your_rules: 1 }) }, // your rule's skip
    ];
    const total = countsOfRuns(runs);
    expect(total).toMatchObject({
      acted: 3,
      confident: 2,
      by_you: 1,
      asked: 1,
      left_alone: 1,
      left_alone_by_rules: 1,
    });
    expect(total.confident + total.by_rules + total.by_you).toBe(total.acted);
  });
});

describe('an answer, in words', () => {
  it('names the action taken, not the button: the suggestion, an option, skip', () => {
    expect(describeAnswer(answered('approve_suggested'))).toBe("Archived — the agent's suggestion");
    expect(describeAnswer(answered('file_ticket'))).toBe('Filed ticket');
    expect(describeAnswer(answered('skip'))).toBe('Left alone');
  });

  it('says when nobody answered, and that a question still waits', () => {
    expect(describeAnswer(answered('skip', 'expired'))).toBe('Left alone — nobody answered in time');
    expect(describeAnswer(answered('skip', 'unreachable'))).toBe('Left alone — nobody could be reached');
    expect(describeAnswer({ status: 'pending', suggested_action: 'archive', answer: null })).toBe(
      'Waiting for you',
    );
  });

  it('puts every template action in the past tense', () => {
    const done = [
      'summarize',
      'notify_team',
      'draft_reply',
      'request_changes',
      'record_expense',
      'comment',
      'approve',
      'github__create_issue',
    ].map(actionDone);
    expect(done).toEqual([
      'Summarized',
      'Notified team',
      'Drafted reply',
      'Requested changes',
      'Recorded expense',
      'Commented',
      'Approved',
      'Created issue (github)',
    ]);
  });
});
