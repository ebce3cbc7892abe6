/**
 * `field: value` edits of a chat's draft: read in words where they can be, checked as a
 * workflow file is, every problem told at once, nothing changed unless all of it is good.
 */
import { describe, expect, it } from '@jest/globals';
import {
  applyDraftEdits,
  DraftProblemsError,
  fieldLines,
  knownFields,
  parseFieldLines,
} from '../../shared/assistant/draft-fields.ts';
import { WorkflowSchema, type Workflow } from '../../shared/workflows/schema.ts';

const draft: Workflow = WorkflowSchema.parse({
  id: 'inbox',
  name: 'Inbox',
  instructions: 'Archive newsletters.',
  trigger: { schedule: 'cron(0 8 * * ? *)' },
  source: {
    type: 'imap',
    host: 'imap.example.org',
    port: 993,
    tls: true,
    user: 'me@example.org',
    credential: 'MAIL_PASSWORD',
  },
  actions: [{ name: 'archive' }, { name: 'delete', irreversible: true }],
  human_gate: { options: ['archive', 'delete', 'skip'] },
});

function problemsOf(edit: () => unknown): string[] {
  try {
    edit();
  } catch (error) {
    if (error instanceof DraftProblemsError) return error.problems;
    throw error;
  }
  throw new Error('the edit was not refused');
}

describe('editing a draft by fields', () => {
  it('reads lines, continuing a field on lines that name none', () => {
    expect(
      parseFieldLines('schedule: every weekday at 9\ninstructions: Archive.\n  Ask about refunds.\n'),
    ).toEqual({
      edits: { schedule: 'every weekday at 9', instructions: 'Archive.\nAsk about refunds.' },
      problems: [],
    });
    expect(parseFieldLines('stray words\ncolour: red\nname: a\nname: b').problems).toEqual([
      'line 1: "stray words" is not a field: write "field: value" (fields are name, schedule, source, instructions, actions, options, threshold)',
      'line 2: "colour" is not a field you can edit here (fields are name, schedule, source, instructions, actions, options, threshold)',
      'line 4: name is given twice',
    ]);
    expect(parseFieldLines('\n').problems).toEqual([expect.stringMatching(/^nothing to change/)]);
    expect(knownFields({ shape: 'round' }).problems).toEqual([
      expect.stringMatching(/^"shape" is not a field/),
    ]);
  });

  it('takes schedules in words, thresholds as percentages, source parts, and keeps what it was not told', () => {
    const edited = applyDraftEdits(draft, {
      schedule: 'every weekday at 9',
      threshold: '85%',
      source: '{ mailbox: Receipts, host: imap.fastmail.com }',
    });
    expect(edited.trigger).toEqual({ schedule: 'cron(0 9 ? * MON-FRI *)' });
    expect(edited.confidence_threshold).toBe(0.85);
    expect(edited.source).toMatchObject({
      type: 'imap',
      host: 'imap.fastmail.com',
      mailbox: 'Receipts',
      user: 'me@example.org',
      credential: 'MAIL_PASSWORD',
    });
    expect(edited.actions).toEqual(draft.actions);
    expect(applyDraftEdits(draft, { schedule: 'manual' }).trigger).toEqual({ manual: true });
    expect(applyDraftEdits(edited, { threshold: 'default' }).confidence_threshold).toBeUndefined();
    expect(applyDraftEdits(draft, { source: '/srv/mail/Maildir' }).source).toEqual({
      type: 'maildir',
      path: '/srv/mail/Maildir',
    });
  });

  it('keeps an action it had as it was, and the choices at the gate follow the actions', () => {
    const edited = applyDraftEdits(draft, { actions: 'delete, file_ticket' });
    expect(edited.actions).toEqual([
      { name: 'delete', irreversible: true },
      { name: 'file_ticket', irreversible: false },
    ]);
    expect(edited.human_gate.options).toEqual(['delete', 'file_ticket', 'skip']);
    expect(
      applyDraftEdits(draft, { actions: 'archive, delete', options: 'archive, skip' }).human_gate.options,
    ).toEqual(['archive', 'skip']);
  });

  it('lists every problem at once, in the words of these fields', () => {
    expect(
      problemsOf(() =>
        applyDraftEdits(
          draft,
          { schedule: 'whenever', threshold: '2', options: 'archive, flag', name: ' ' },
          ['line 9: "colour" is not a field you can edit here'],
        ),
      ),
    ).toEqual([
      'line 9: "colour" is not a field you can edit here',
      expect.stringMatching(/^schedule: "whenever" is not a schedule/),
      'name: must not be empty',
      'threshold: must be between 0 and 1 (got 2)',
      expect.stringMatching(/^options: "flag" is not a declared action/),
    ]);
    expect(problemsOf(() => applyDraftEdits(draft, { source: '[1, 2' }))).toEqual([
      expect.stringMatching(/^source: "\[1, 2" is not a source/),
    ]);
  });

  it('shows the draft as the lines it takes back', () => {
    const lines = fieldLines(draft);
    expect(lines).toContain('schedule: cron(0 8 * * ? *)');
    expect(lines).toContain('actions: archive, delete');
    expect(lines).toContain('threshold: default');
    const back = parseFieldLines(lines.join('\n'));
    expect(back.problems).toEqual([]);
    expect(applyDraftEdits(draft, back.edits)).toEqual(draft);
  });
});
