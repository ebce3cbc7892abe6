import { describe, expect, it } from '@jest/globals';
import { asksToShowDraft, refineDraft } from '../../shared/models/offline/refine-draft.ts';
import { operatorIntent } from '../../shared/models/offline/intents.ts';

const DRAFT = {
  id: 'inbox-triage-2',
  name: 'Inbox triage: newsletters',
  instructions: 'archive newsletters\nWhen a message fits none of this, skip it.',
  trigger: { schedule: 'cron(0 8 ? * MON-FRI *)' },
  source: {
    type: 'imap',
    host: 'imap.fastmail.com',
    port: 993,
    tls: true,
    user: 'me@fastmail.com',
    credential: 'MAIL_PASSWORD',
    mailbox: 'INBOX',
  },
  actions: [{ name: 'archive' }, { name: 'delete', irreversible: true }],
  human_gate: { options: ['archive', 'delete', 'skip'] },
};

describe("the offline model's reading of a change to the draft", () => {
  it.each([
    ['make it 9am instead of 8', { trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' } }],
    ['change it to 7:30pm', { trigger: { schedule: 'cron(30 19 ? * MON-FRI *)' } }],
    ['at 9 instead', { trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' } }],
    ['every day, not only weekdays', { trigger: { schedule: 'cron(0 8 * * ? *)' } }],
    ['only on Mondays', { trigger: { schedule: 'cron(0 8 ? * MON *)' } }],
    ['every 30 minutes', { trigger: { schedule: 'rate(30 minutes)' } }],
    ['only when I run it', { trigger: { manual: true } }],
    ['use the Newsletters folder', { source: { ...DRAFT.source, mailbox: 'Newsletters' } }],
    ['use my gmail instead of fastmail', { source: { ...DRAFT.source, host: 'imap.gmail.com' } }],
    ['as boss@fastmail.com', { source: { ...DRAFT.source, user: 'boss@fastmail.com' } }],
    ['be more careful', { confidence_threshold: 0.85 }],
    ['ask me less', { confidence_threshold: 0.6 }],
    ['set the threshold to 80%', { confidence_threshold: 0.8 }],
    ['call it Morning mail', { name: 'Morning mail' }],
  ])('"%s" changes only that part', (request, part) => {
    expect(refineDraft(DRAFT, request)).toEqual({ ...DRAFT, ...part });
  });

  it('"also ask about invoices" adds an instruction before the catch-all line, nothing else', () => {
    expect(refineDraft(DRAFT, 'also ask about invoices')).toEqual({
      ...DRAFT,
      instructions:
        'archive newsletters\nAsk me about invoices; never act on them alone.\nWhen a message fits none of this, skip it.',
    });
  });

  it('"also file tickets for bug reports" adds the action, its gate option and a line saying when', () => {
    const next = refineDraft(DRAFT, 'also file tickets for bug reports')!;
    expect(next.actions).toEqual([...DRAFT.actions, { name: 'file_ticket' }]);
    expect(next.human_gate).toEqual({ options: ['archive', 'delete', 'file_ticket', 'skip'] });
    expect(String(next.instructions)).toContain('File tickets for bug reports.');
  });

  it('"never delete anything" takes the action and its option away', () => {
    const next = refineDraft(DRAFT, 'never delete anything')!;
    expect(next.actions).toEqual([{ name: 'archive' }]);
    expect(next.human_gate).toEqual({ options: ['archive', 'skip'] });
  });

  it('reads nothing into a request that names no part', () => {
    for (const request of ['hello', 'what rules have you learned?', 'thanks!'])
      expect(refineDraft(DRAFT, request)).toBeNull();
  });

  it('tells a request about the draft from one about a saved workflow', () => {
    expect(asksToShowDraft('show me the workflow you drafted')).toBe(true);
    expect(asksToShowDraft('what does the draft look like?')).toBe(true);
    expect(asksToShowDraft('show me inbox-triage-3')).toBe(false);
    expect(operatorIntent('show me inbox-triage-3')).toEqual({ kind: 'show' });
    expect(operatorIntent('delete the workflow inbox-triage-3')).toEqual({ kind: 'delete' });
    expect(operatorIntent('every Friday at 5pm, delete spam and archive newsletters')).toBeNull();
    expect(operatorIntent('why did you ask me about Coffee next week?')).toMatchObject({ kind: 'why' });
    expect(operatorIntent('what rules have you learned?')).toEqual({ kind: 'rules' });
    expect(operatorIntent('what did you do yesterday?')).toEqual({ kind: 'activity', day: 'yesterday' });
  });
});
