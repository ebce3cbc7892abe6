/**
 * A reply draft is written for the message, shown where the person decides, editable there,
 * and saved exactly as approved, threaded as a reply. The note teaches the next run: it is
 * never mail.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { OFFLINE_DRAFT_MARK } from '../../shared/models/offline/reply.ts';
import { decide } from '../../shared/runs/decide.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const manual = { kind: 'manual', detail: null } as const;
const NOTE = 'Tomi is a client; always draft a reply to him';

const TOMI = mail({
  from: 'tomi@fastmail.example',
  fromName: 'Tomi Okafor',
  subject: 'Contract renewal',
  messageId: '<renewal-1@fastmail.example>',
  headers: { References: '<earlier-1@fastmail.example>' },
  body: 'Hello,\n\nOur contract ends in March. Could you send the renewal terms by Friday?\n\nThanks,\nTomi\n',
});

/** The drafts written so far, parsed, with the raw text. */
async function drafts(): Promise<{ raw: string; parsed: Awaited<ReturnType<typeof simpleParser>> }[]> {
  const dir = path.join(fixture.maildir, '.Drafts', 'cur');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (name) => {
      const raw = await fs.readFile(path.join(dir, name), 'utf8');
      return { raw, parsed: await simpleParser(raw) };
    }),
  );
}

/** The reply's own words: the body above the quoted original. */
function ownWords(text: string | undefined): string {
  return (text ?? '').split(/\n\nOn .+ wrote:\n/)[0]!.replace(/\r\n/g, '\n');
}

describe('a reply draft', () => {
  it('is written for the message by the offline model, shown on the question, and marked as offline', async () => {
    fixture = await engineFixture({ messages: [TOMI], model: () => new OfflineModel() });

    await startRun(fixture.deps, 'inbox', manual);

    const [decision] = await listPending(fixture.store);
    const reply = decision!.drafts?.find((d) => d.action === 'draft_reply');
    expect(reply).toMatchObject({ by: 'offline', title: null });
    expect(reply!.body).toContain('Hi Tomi,');
    expect(reply!.body).toContain('"Contract renewal"');
    expect(reply!.body).toContain('Could you send the renewal terms by Friday?');
    expect(reply!.body).toContain(OFFLINE_DRAFT_MARK);
    expect(reply!.body).not.toMatch(/get back to you shortly/);
    // A ticket's words are shown too: its title and body, from the message.
    expect(decision!.drafts?.find((d) => d.action === 'file_ticket')).toMatchObject({
      title: 'Contract renewal',
      by: 'template',
    });
  });

  it('approved as drafted, saves exactly the draft shown, threaded as a reply, and never the note', async () => {
    fixture = await engineFixture({ messages: [TOMI], model: () => new OfflineModel() });
    await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);
    const shown = decision!.drafts!.find((d) => d.action === 'draft_reply')!.body;

    await decide(fixture.deps, decision!.id, 'draft_reply', NOTE);

    const [draft, ...more] = await drafts();
    expect(more).toHaveLength(0);
    expect(draft!.raw).not.toContain('always draft a reply');
    expect(ownWords(draft!.parsed.text)).toBe(shown);
    expect(draft!.parsed.subject).toBe('Re: Contract renewal');
    expect(draft!.parsed.inReplyTo).toBe('<renewal-1@fastmail.example>');
    expect(draft!.parsed.references).toEqual([
      '<earlier-1@fastmail.example>',
      '<renewal-1@fastmail.example>',
    ]);
    expect(draft!.parsed.text).toContain('> Our contract ends in March.'); // the original, quoted below
    expect((await getDecision(fixture.store, decision!.id)).answer).toMatchObject({ note: NOTE });
  });

  it('edited before approving, saves the edited text and nothing of the note', async () => {
    fixture = await engineFixture({ messages: [TOMI], model: () => new OfflineModel() });
    await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);
    const edited =
      'Hi Tomi,\r\n\r\nThe renewal terms are attached; same price as last year.\r\n\r\nBest,\r\nAna\r\n\r\n';

    await decide(fixture.deps, decision!.id, 'draft_reply', 'just this once', { edits: { body: edited } });

    const [draft] = await drafts();
    expect(ownWords(draft!.parsed.text)).toBe(
      'Hi Tomi,\n\nThe renewal terms are attached; same price as last year.\n\nBest,\nAna',
    );
    expect(draft!.raw).not.toContain('just this once');
    expect(draft!.raw).not.toContain(OFFLINE_DRAFT_MARK);
    const answered = await getDecision(fixture.store, decision!.id);
    expect(answered.answer).toMatchObject({
      note: 'just this once',
      body: expect.stringContaining('same price'),
    });
  });

  it('refuses words for an action that carries none, and an empty body, changing nothing', async () => {
    fixture = await engineFixture({ messages: [TOMI], model: () => new OfflineModel() });
    await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);

    await expect(
      decide(fixture.deps, decision!.id, 'archive', null, { edits: { body: 'Hi' } }),
    ).rejects.toThrow(/"archive" carries no words/);
    await expect(
      decide(fixture.deps, decision!.id, 'draft_reply', null, { edits: { body: ' \n ' } }),
    ).rejects.toThrow(/must not be empty/);
    expect((await getDecision(fixture.store, decision!.id)).status).toBe('pending');
    expect(await drafts()).toHaveLength(0);
  });

  it('a ticket is filed with the title and body the person gave', async () => {
    fixture = await engineFixture({ messages: [TOMI], model: () => new OfflineModel() });
    await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);

    await decide(fixture.deps, decision!.id, 'file_ticket', 'renewals are tickets', {
      edits: { title: 'Renewal terms for Tomi', body: 'Send the renewal terms by Friday.' },
    });

    const [ticket] = await fixture.store.list('tickets');
    expect(ticket).toMatchObject({
      title: 'Renewal terms for Tomi',
      body: 'Send the renewal terms by Friday.',
    });
  });

  it('a rule that drafts writes a fresh draft for each message', async () => {
    const second = mail({
      from: 'tomi@fastmail.example',
      fromName: 'Tomi Okafor',
      subject: 'Invoice 118',
      body: 'Hi,\n\nIs invoice 118 paid already?\n',
    });
    fixture = await engineFixture({ messages: [TOMI, second], model: () => new OfflineModel() });
    await addRule(fixture.store, {
      workflowId: 'inbox',
      match: { sender: 'tomi@fastmail.example' },
      action: 'draft_reply',
      note: NOTE,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.counts).toMatchObject({ acted: 2, by_your_rules: 2 });
    const written = (await drafts()).map((d) => ownWords(d.parsed.text)).sort();
    expect(written).toHaveLength(2);
    expect(written[0]).toContain('"Contract renewal"');
    expect(written[0]).toContain('Could you send the renewal terms by Friday?');
    expect(written[1]).toContain('"Invoice 118"');
    expect(written[1]).toContain('Is invoice 118 paid already?');
    for (const text of written) expect(text).not.toContain('always draft');
  });
});
