/**
 * Where the person decides, they read the draft and can change it: a text box on the decision
 * page (and Activity), `"body"` in the API. What is saved is exactly what they approved.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { decisionPath } from '../../shared/links/decision-links.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { createApp } from '../../shared/web/app.ts';
import { makeHarness, type Harness } from './support.ts';

const KEY = Buffer.alloc(32, 9);
let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(() => h.cleanup());

/** Runs the demo workflow and returns its questions that offer a reply draft. */
async function questionsWithReplies(): Promise<Decision[]> {
  const res = await h.app.request('/api/workflows/inbox-triage/runs', { method: 'POST', headers: h.auth() });
  expect(res.status).toBe(202);
  await h.launcher.idle();
  const pending = await listPending(h.engine.store);
  return pending.filter((d) => d.drafts?.some((w) => w.action === 'draft_reply'));
}

const replyOf = (d: Decision) => d.drafts!.find((w) => w.action === 'draft_reply')!.body;

/** The drafts saved in reply to the question's message. */
async function savedDrafts(question: Decision): Promise<Awaited<ReturnType<typeof simpleParser>>[]> {
  const source = h.workflow.source as { path: string };
  const dir = path.join(source.path, '.Drafts', 'cur');
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const all = await Promise.all(names.map(async (n) => simpleParser(await fs.readFile(path.join(dir, n)))));
  return all.filter((d) => d.inReplyTo === question.item_id);
}

const ownWords = (text: string | undefined) =>
  (text ?? '').replace(/\r\n/g, '\n').split(/\n\nOn .+ wrote:\n/)[0]!;

/** The app as a signed link reaches it. */
function linkedApp() {
  return createApp({ engine: h.engine, env: h.env, linkKey: { get: async () => KEY }, requireToken: true });
}

it('the decision page shows the draft in a text box, and the edited text is what is saved', async () => {
  const [question] = await questionsWithReplies();
  const app = linkedApp();
  const link = decisionPath(KEY, question!.id, new Date(question!.expires_at), 'default');

  const page = await (await app.request(link)).text();
  const box = /<textarea[^>]*name="body:draft_reply"[^>]*>([\s\S]*?)<\/textarea>/.exec(page);
  expect(box).not.toBeNull();
  // A browser drops the one newline that opens a text box's content.
  const unescaped = box![1]!
    .replace(/^\n/, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  expect(unescaped).toBe(replyOf(question!));
  expect(page).toContain('never part of any mail'); // the note says what it is for

  const token = new URL(`http://x${link}`).searchParams.get('token')!;
  const form = new URLSearchParams({
    token,
    action: 'draft_reply',
    note: 'replies like this are fine',
    'body:draft_reply': 'Thanks, I read it.\r\nLet us talk on Monday.\r\n',
  });
  const res = await app.request(`/decide/${encodeURIComponent(question!.id)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  expect(res.status).toBe(200);
  await h.launcher.idle();

  const answered = await getDecision(h.engine.store, question!.id);
  expect(answered.answer).toMatchObject({
    action: 'draft_reply',
    body: 'Thanks, I read it.\nLet us talk on Monday.',
  });
  // The run resumes once every question is answered.
  for (const d of await listPending(h.engine.store))
    await h.app.request(`/api/decisions/${encodeURIComponent(d.id)}`, {
      method: 'POST',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ action: 'skip' }),
    });
  await h.launcher.idle();
  const drafts = await savedDrafts(question!);
  expect(drafts.map((d) => ownWords(d.text))).toEqual(['Thanks, I read it.\nLet us talk on Monday.']);
  expect(drafts[0]!.text).not.toContain('replies like this are fine');
});

it('the API takes "body" with the answer, and refuses one for an action that carries no words', async () => {
  const [question, ...rest] = await questionsWithReplies();
  const post = (id: string, body: unknown) =>
    h.app.request(`/api/decisions/${encodeURIComponent(id)}`, {
      method: 'POST',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(body),
    });

  const refused = await post(question!.id, { action: 'archive', body: 'Hi' });
  expect(refused.status).toBe(422);
  expect(((await refused.json()) as { error: string }).error).toMatch(/"archive" carries no words/);
  expect((await getDecision(h.engine.store, question!.id)).status).toBe('pending');

  const ok = await post(question!.id, {
    action: 'draft_reply',
    note: 'always reply',
    body: 'See you Monday.',
  });
  expect(ok.status).toBe(200);
  for (const d of [...rest, ...(await listPending(h.engine.store))].filter(
    (d, i, all) => all.indexOf(d) === i,
  ))
    if ((await getDecision(h.engine.store, d.id)).status === 'pending') await post(d.id, { action: 'skip' });
  await h.launcher.idle();
  const drafts = await savedDrafts(question!);
  expect(drafts.map((d) => ownWords(d.text))).toEqual(['See you Monday.']);
  expect(drafts[0]!.text).not.toContain('always reply');
});

it('Activity shows each question’s draft in its own text box', async () => {
  const questions = await questionsWithReplies();
  expect(questions.length).toBeGreaterThan(0);
  const page = await (await h.app.request('/activity')).text();
  for (const q of questions) expect(page).toContain(`-${q.id}-draft_reply-body`);
});
