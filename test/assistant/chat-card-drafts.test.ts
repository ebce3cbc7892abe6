/**
 * A question shown in the chat is answered on its card: the card shows the drafted reply
 * (marked when the offline model wrote it) in a text box, and what is in the box when the
 * person answers is exactly what is saved to the mailbox. The note is never part of the mail.
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { appendTurns, createChat, readTurns, getChat } from '../../shared/chats/chat-repository.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { makeHarness, type Harness } from '../web/support.ts';
import { pageClient } from '../web/page-client.ts';
import { boxText, ownWords, replyOf, savedDrafts, skipTheRest } from '../web/saved-drafts.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(() => h.cleanup());

/** A chat whose run paused on its questions; those that offer a reply draft. */
async function chatWithQuestions(): Promise<{ chatId: string; questions: Decision[] }> {
  const chat = await createChat(h.engine.store);
  const run = await createRunFor(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
  const at = new Date().toISOString();
  await appendTurns(h.engine.store, chat.id, [
    { role: 'user', text: 'run it', at, cards: [] },
    {
      role: 'assistant',
      text: 'Started.',
      at,
      cards: [{ kind: 'run', run_id: run.id, status: 'running', text: 'Run' }],
    },
  ]);
  h.launcher.launch(run);
  await h.launcher.idle();
  const pending = await listPending(h.engine.store);
  return {
    chatId: chat.id,
    questions: pending.filter((d) => d.drafts?.some((w) => w.action === 'draft_reply')),
  };
}

/** The card of decision `id` on the chat page. */
const cardOf = (page: string, id: string) =>
  new RegExp(`<form[^>]*data-decision="${id}"[\\s\\S]*?</form>`).exec(page)?.[0];

it('the chat card shows the drafted reply in a text box, marked as an offline draft', async () => {
  const { chatId, questions } = await chatWithQuestions();
  expect(questions.length).toBeGreaterThan(0);
  const page = await (await pageClient(h.app).get(`/chat/${chatId}`)).text();
  for (const q of questions) {
    const card = cardOf(page, q.id);
    expect(card).toBeDefined();
    expect(boxText(card!, 'body:draft_reply')).toBe(replyOf(q).body);
    if (replyOf(q).by === 'offline') expect(card).toContain('offline draft');
  }
});

it('the edited text of the card is what is saved to the Maildir, and the note is not in it', async () => {
  const { chatId, questions } = await chatWithQuestions();
  const [question, other] = questions;
  const browser = pageClient(h.app);
  const page = await (await browser.get(`/chat/${chatId}`)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const edited = 'Hi Jonas,\nA call on Thursday at 10 works for me.\nSee you then.';

  // An emptied box is refused on the page: nothing is answered.
  const emptied = await browser.post(`/chat/${chatId}/decide`, {
    _csrf: csrf,
    decision_id: question!.id,
    action: 'draft_reply',
    'body:draft_reply': '   ',
  });
  expect(emptied.status).toBe(422);
  expect(await emptied.text()).toContain('the body must not be empty');
  expect((await getDecision(h.engine.store, question!.id)).status).toBe('pending');

  const res = await browser.post(`/chat/${chatId}/decide`, {
    _csrf: csrf,
    decision_id: question!.id,
    action: 'draft_reply',
    note: 'Jonas is a partner; always reply',
    'body:draft_reply': edited.replace(/\n/g, '\r\n'),
    // The other boxes of the card go with the form; only the chosen action's count.
    ...(question!.drafts!.some((w) => w.action === 'file_ticket')
      ? { 'title:file_ticket': 'not this', 'body:file_ticket': 'not this either' }
      : {}),
  });
  expect(res.status).toBe(303);
  expect((await getDecision(h.engine.store, question!.id)).answer).toMatchObject({
    action: 'draft_reply',
    note: 'Jonas is a partner; always reply',
    body: edited,
  });
  const turns = await readTurns(h.engine.store, await getChat(h.engine.store, chatId));
  expect(
    turns.some(
      (t) =>
        t.text === `Answer ${question!.id}: draft_reply, with my words (Jonas is a partner; always reply)`,
    ),
  ).toBe(true);

  // A card answered with its box as drafted saves the draft.
  if (other) {
    const kept = await browser.post(`/chat/${chatId}/decide`, {
      _csrf: csrf,
      decision_id: other.id,
      action: 'draft_reply',
      'body:draft_reply': replyOf(other).body,
    });
    expect(kept.status).toBe(303);
    expect((await getDecision(h.engine.store, other.id)).answer?.body).toBeUndefined();
  }

  await skipTheRest(h);
  const saved = await savedDrafts(h, question!);
  expect(saved.map((d) => ownWords(d.mail.text))).toEqual([edited]);
  expect(saved[0]!.mail.subject).toMatch(/^Re: /);
  expect(saved[0]!.raw).not.toContain('always reply');
  expect(saved[0]!.raw).not.toContain('not this');
  if (other)
    expect((await savedDrafts(h, other)).map((d) => ownWords(d.mail.text))).toEqual([replyOf(other).body]);
});
