import { afterEach, describe, expect, it } from '@jest/globals';
import { marksException } from '../../shared/memory/exception.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const neutral = (subject: string) =>
  mail({
    from: 'alerts@ops.example',
    subject,
    body: 'Hi,\n\nPlease see the attached note when convenient.\n',
  });

/** Runs two messages from one sender to the gate and answers them in the given order. */
async function answerInOrder(answers: [subject: string, action: string, note: string][]) {
  fixture = await engineFixture({
    messages: [neutral('Disk usage report'), neutral('Certificate notice')],
    model: () => new OfflineModel(),
  });
  const run = await startRun(fixture.deps, 'inbox', manual);
  expect(run.counts.deferred).toBe(2);
  const pending = await listPending(fixture.store);
  for (const [subject, action, note] of answers) {
    const decision = pending.find((d) => d.subject === subject)!;
    await decide(fixture.deps, decision.id, action, note);
  }
  return (await listRules(fixture.store)).map((r) => ({
    match: r.match,
    action: r.action,
    live: r.superseded_by === null,
  }));
}

const ticket: [string, string, string] = [
  'Disk usage report',
  'file_ticket',
  'mail from alerts@ops.example is always a ticket',
];

describe('answers given together in one run', () => {
  it.each([
    ['the rule first', [ticket, ['Certificate notice', 'archive', 'just this once']]],
    ['the exception first', [['Certificate notice', 'archive', 'just this once'], ticket]],
  ] as const)(
    '"just this once" neither teaches nor cancels the rule another answer taught (%s)',
    async (_, answers) => {
      const rules = await answerInOrder(answers.map((a) => [...a]) as [string, string, string][]);
      expect(rules).toEqual([{ match: { sender: 'alerts@ops.example' }, action: 'file_ticket', live: true }]);
    },
  );

  it.each([
    ['ticket first', [ticket, ['Certificate notice', 'archive', 'mail from alerts@ops.example: archive']]],
    ['archive first', [['Certificate notice', 'archive', 'mail from alerts@ops.example: archive'], ticket]],
  ] as const)(
    'two answers that disagree about the same sender leave no live rule, whichever came first (%s)',
    async (_, answers) => {
      const rules = await answerInOrder(answers.map((a) => [...a]) as [string, string, string][]);
      expect(rules.filter((r) => r.live)).toEqual([]);
    },
  );
});

it('reads the usual ways of saying an answer is a one-off', () => {
  for (const note of [
    'Just this once',
    'only this time',
    'this one time, archive',
    'an exception',
    'one-off',
  ])
    expect(marksException(note)).toBe(true);
  for (const note of ['always a ticket', 'no exception: always a ticket', null])
    expect(marksException(note)).toBe(false);
});
