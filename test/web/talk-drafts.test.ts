/**
 * On Talk the person sees the drafted reply (marked when the offline model wrote it) in a text
 * box, hears that a reply is drafted, and what is in the box when they answer, by voice or
 * with the keyboard, is what is saved to the mailbox. The note is never part of the mail.
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { speakToWav } from '../../bench/speech-fixture.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { pageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';
import {
  boxText,
  ownWords,
  questionsWithReplies,
  replyOf,
  savedDrafts,
  skipTheRest,
} from './saved-drafts.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(() => h.cleanup());

/** The Talk page as the browser has it: its HTML, and a call to the API as talk.js makes one. */
async function talk() {
  const browser = pageClient(h.app);
  const page = await (await browser.get('/talk')).text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
  const call = (path: string, init: RequestInit) =>
    h.app.request(`/ui${path}`, {
      ...init,
      headers: { Cookie: browser.cookie, 'X-CSRF-Token': csrf, ...(init.headers as Record<string, string>) },
    });
  return { page, call };
}

it('shows each drafted reply in a text box, says a reply is drafted, and marks an offline draft', async () => {
  const questions = await questionsWithReplies(h);
  expect(questions.length).toBeGreaterThan(0);
  const { page } = await talk();
  for (const q of questions) {
    const card = new RegExp(`<article[^>]*data-decision="${q.id}"[\\s\\S]*?</article>`).exec(page)?.[0];
    expect(card).toBeDefined();
    expect(boxText(card!, 'body:draft_reply')).toBe(replyOf(q).body);
    expect(card).toMatch(/data-drafted="[^"]*\b[Aa] reply (is|and|are)/);
    if (replyOf(q).by === 'offline') {
      expect(card).toContain('offline draft: written without a language model');
      expect(card).toMatch(/data-drafted="[^"]*offline draft/);
    }
  }
  // A question whose options carry no words has nothing drafted to read out.
  const wordless = (await listPending(h.engine.store)).find((d) => (d.drafts ?? []).length === 0);
  if (wordless)
    expect(new RegExp(`data-decision="${wordless.id}"[^>]*data-drafted=""`).test(page)).toBe(true);
});

it('a spoken "draft a reply" saves the text box as the person left it, and the note stays a note', async () => {
  const [question] = await questionsWithReplies(h);
  const { call } = await talk();
  const edited = 'Thanks Tomi, I read it.\nLet us talk on Monday.';
  const res = await call(`/api/decisions/${encodeURIComponent(question!.id)}/voice`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      transcript: 'draft a reply, Tomi is a client',
      'body:draft_reply': `${edited}\r\n`,
    }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({
    intent: 'draft_reply',
    action: 'draft_reply',
    note: 'tomi is a client',
    edited: true,
    // Voice answers say what they learned (issue 29), as every answer surface does.
    message: `Done: drafted reply, with your words. From now on: mail from ${question!.sender}, draft a reply.`,
    learned: `From now on: mail from ${question!.sender} → draft a reply`,
    learned_rule: { action: 'draft_reply' },
  });
  expect((await getDecision(h.engine.store, question!.id)).answer).toMatchObject({
    action: 'draft_reply',
    note: 'tomi is a client',
    body: edited,
  });

  await skipTheRest(h);
  const saved = await savedDrafts(h, question!);
  expect(saved.map((d) => ownWords(d.mail.text))).toEqual([edited]);
  expect(saved[0]!.mail.subject).toMatch(/^Re: /);
  expect(saved[0]!.raw.toLowerCase()).not.toContain('tomi is a client');
  expect(saved[0]!.raw).not.toContain(replyOf(question!).body.split('\n')[0]);
});

it('a keyboard answer sends the edited box; a box left as drafted saves the draft; a bad field changes nothing', async () => {
  const [first, second] = await questionsWithReplies(h);
  expect(second).toBeDefined();
  const { call } = await talk();
  const voice = (id: string, body: unknown) =>
    call(`/api/decisions/${encodeURIComponent(id)}/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  // A field that is no text box, or an emptied box: refused, nothing answered.
  const stray = await voice(first!.id, { transcript: 'draft a reply', subject: 'x' });
  expect(stray.status).toBe(400);
  expect(((await stray.json()) as { error: string }).error).toMatch(/"subject" is not a field/);
  const emptied = await voice(first!.id, { transcript: 'draft a reply', 'body:draft_reply': '  ' });
  expect(emptied.status).toBe(422);
  expect((await getDecision(h.engine.store, first!.id)).status).toBe('pending');

  // The keyboard: talk.js sends the box's text as "body" with the chosen action.
  const typed = await call(`/api/decisions/${encodeURIComponent(first!.id)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'draft_reply', note: 'always reply', body: 'Typed on Talk.' }),
  });
  expect(typed.status).toBe(200);
  expect((await getDecision(h.engine.store, first!.id)).answer).toMatchObject({
    action: 'draft_reply',
    body: 'Typed on Talk.',
  });
  // Said with the box untouched: the draft is what is saved.
  const untouched = await voice(second!.id, {
    transcript: 'draft a reply',
    'body:draft_reply': replyOf(second!).body,
  });
  expect(await untouched.json()).toMatchObject({
    action: 'draft_reply',
    message: `Done: drafted reply. From now on: mail from ${second!.sender}, draft a reply.`,
  });
  expect((await getDecision(h.engine.store, second!.id)).answer?.body).toBeUndefined();

  await skipTheRest(h);
  const firstSaved = await savedDrafts(h, first!);
  expect(firstSaved.map((d) => ownWords(d.mail.text))).toEqual(['Typed on Talk.']);
  expect(firstSaved[0]!.raw).not.toContain('always reply');
  const secondSaved = await savedDrafts(h, second!);
  expect(secondSaved.map((d) => ownWords(d.mail.text))).toEqual([replyOf(second!).body]);
});

it('a recording sent with the text boxes (multipart, as talk.js sends it) saves the edited reply', async () => {
  const [question] = await questionsWithReplies(h);
  const { call } = await talk();
  const voice = (id: string, form: FormData) =>
    call(`/api/decisions/${encodeURIComponent(id)}/voice`, { method: 'POST', body: form });
  const edited = 'Spoken answer, typed words: see you Monday.';
  const wav = new Uint8Array(await speakToWav('draft a reply', 'en-us', 170));

  // A form without the recording, or with a field that is no text box: refused, nothing answered.
  const noAudio = new FormData();
  noAudio.append('body:draft_reply', edited);
  const refused = await voice(question!.id, noAudio);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toMatch(/no "audio" file/);
  const stray = new FormData();
  stray.append('audio', new Blob([wav], { type: 'audio/wav' }), 'said.wav');
  stray.append('note', 'x');
  expect((await voice(question!.id, stray)).status).toBe(400);
  expect((await getDecision(h.engine.store, question!.id)).status).toBe('pending');

  const form = new FormData();
  form.append('audio', new Blob([wav], { type: 'audio/wav' }), 'said.wav');
  form.append('body:draft_reply', edited);
  form.append('body:file_ticket', 'a box of another action is not saved');
  const res = await voice(question!.id, form);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ intent: 'draft_reply', action: 'draft_reply', edited: true });

  await skipTheRest(h);
  const saved = await savedDrafts(h, question!);
  expect(saved.map((d) => ownWords(d.mail.text))).toEqual([edited]);
  expect(saved[0]!.raw).not.toContain('another action');
});

it('a spoken answer says what it learned, and "just this once" teaches nothing and says so', async () => {
  const [first, second] = await questionsWithReplies(h);
  expect(second).toBeDefined();
  const { call } = await talk();
  const voice = (id: string, transcript: string) =>
    call(`/api/decisions/${encodeURIComponent(id)}/voice`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ transcript }),
    });

  const once = (await (await voice(first!.id, 'leave it, just this once')).json()) as Record<string, unknown>;
  expect(once).toMatchObject({
    action: 'skip',
    learned: 'Nothing learned (just this once)',
    learned_rule: null,
  });
  expect(once.message).toMatch(/^Done: .+\. Nothing learned \(just this once\)\.$/);

  const taught = (await (await voice(second!.id, 'leave it')).json()) as {
    message: string;
    learned_rule: { id: string; action: string } | null;
  };
  expect(taught.learned_rule).toMatchObject({ action: 'skip' });
  expect(taught.message).toContain(`From now on: mail from ${second!.sender}, leave it alone.`);
  // The rule named is the one Undo revokes: it exists, live, under that id.
  const undo = await call(`/api/rules/${encodeURIComponent(taught.learned_rule!.id)}/undo`, {
    method: 'POST',
  });
  expect(undo.status).toBe(200);
});
