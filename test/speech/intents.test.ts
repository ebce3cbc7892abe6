import { describe, expect, it } from '@jest/globals';
import { parseIntent, vocabulary } from '../../shared/speech/intents.ts';

const context = {
  options: [
    'file_ticket',
    'archive',
    'draft_reply',
    'delete',
    'github__create_issue',
    'approve_suggested',
    'skip',
  ],
  irreversible: new Set(['delete']),
  suggested: 'archive',
};
const parse = (text: string) => parseIntent(text, context);

describe('voice intents', () => {
  it('reads each option from its phrases and synonyms', () => {
    expect(parse('archive it')).toEqual({
      kind: 'answer',
      action: 'archive',
      note: null,
      irreversible: false,
    });
    expect(parse('File a ticket.')).toMatchObject({ action: 'file_ticket' });
    expect(parse('open a ticket please')).toMatchObject({ action: 'file_ticket' });
    expect(parse('Draft a reply')).toMatchObject({ action: 'draft_reply' });
    expect(parse('write a reply')).toMatchObject({ action: 'draft_reply' });
    expect(parse('github create issue')).toMatchObject({ action: 'github__create_issue' });
    expect(parse('do what you suggested')).toMatchObject({
      action: 'approve_suggested',
      irreversible: false,
    });
  });

  it('hears "leave it" as skip', () => {
    expect(parse('Leave it.')).toMatchObject({ kind: 'answer', action: 'skip' });
    expect(parse('leave it alone')).toMatchObject({ action: 'skip' });
  });

  it('keeps the note said after a comma or "because"', () => {
    expect(parse('Archive it, newsletters can go.')).toEqual({
      kind: 'answer',
      action: 'archive',
      note: 'newsletters can go',
      irreversible: false,
    });
    expect(parse('leave it because I will answer myself')).toMatchObject({
      action: 'skip',
      note: 'i will answer myself',
    });
  });

  it('marks irreversible options, also when the suggestion it approves is one', () => {
    expect(parse('delete it')).toMatchObject({ action: 'delete', irreversible: true });
    expect(parseIntent('do what you suggested', { ...context, suggested: 'delete' })).toMatchObject({
      action: 'approve_suggested',
      irreversible: true,
    });
  });

  it('reads the controls: why, next, stop, yes, no', () => {
    expect(parse('Why?')).toEqual({ kind: 'why' });
    expect(parse('why is that')).toEqual({ kind: 'why' });
    expect(parse('next one')).toEqual({ kind: 'next' });
    expect(parse('stop')).toEqual({ kind: 'stop' });
    expect(parse('Yes.')).toEqual({ kind: 'yes' });
    expect(parse("no, don't")).toEqual({ kind: 'no' });
  });

  it('matches nothing for speech outside the vocabulary, never the nearest command', () => {
    for (const text of [
      '',
      '   ',
      'I think we should get pizza tonight',
      'archive everything from last year', // starts like a command but is not one
      'delete it all and start over',
      'why not', // a question, not "why"
      'file', // half a command
      'please archive it', // not a phrase we know
    ])
      expect(parse(text)).toEqual({ kind: 'none' });
  });

  it('offers only the options the decision has', () => {
    expect(parseIntent('delete it', { ...context, options: ['archive', 'skip'] })).toEqual({ kind: 'none' });
  });

  it('lists the vocabulary the local recogniser is held to', () => {
    const words = vocabulary(['archive', 'skip']);
    expect(words).toEqual(expect.arrayContaining(['archive it', 'leave it', 'why', 'yes', 'no']));
    expect(words).not.toContain('delete it');
  });
});
