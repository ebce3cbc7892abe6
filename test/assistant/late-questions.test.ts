/**
 * A run started from a chat that pauses after the chat's turn ended (on AWS it goes on in
 * other functions) shows its questions in the chat when the chat is read again: in
 * `GET /api/chats/:id` (polled on Lambda) and on the Chat page, answerable there.
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { appendTurns, createChat } from '../../shared/chats/chat-repository.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { makeHarness, type Harness } from '../web/support.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(() => h.cleanup());

it('shows the questions a chat-started run asked after its turn, and only until answered', async () => {
  const store = h.engine.store;
  const chat = await createChat(store);
  // The turn that started the run ended while it was still running (as on AWS).
  const run = await createRunFor(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
  const at = new Date().toISOString();
  await appendTurns(store, chat.id, [
    { role: 'user', text: 'run it', at, cards: [] },
    {
      role: 'assistant',
      text: 'Started.',
      at,
      cards: [{ kind: 'run', run_id: run.id, status: 'running', text: 'Run' }],
    },
  ]);
  const read = async () =>
    (await (await h.app.request(`/api/chats/${chat.id}`, { headers: h.auth() })).json()) as {
      questions: { kind: string; decision_id: string; run_id: string }[];
    };
  expect((await read()).questions).toEqual([]);

  h.launcher.launch(run); // the run goes on and pauses on its questions
  await h.launcher.idle();
  const pending = await listPending(store);
  expect(pending.length).toBeGreaterThan(0);
  const questions = (await read()).questions;
  expect(questions.map((q) => q.decision_id).sort()).toEqual(pending.map((d) => d.id).sort());
  expect(questions.every((q) => q.kind === 'decision' && q.run_id === run.id)).toBe(true);

  const page = await (await h.app.request(`/chat/${chat.id}`)).text();
  expect(page).toContain('data-late-questions');
  for (const d of pending) expect(page).toContain(`data-decision="${d.id}"`);

  const answer = await h.app.request(`/api/decisions/${pending[0]!.id}`, {
    method: 'POST',
    headers: h.auth({ 'Content-Type': 'application/json' }),
    body: JSON.stringify({ action: 'skip' }),
  });
  expect(answer.status).toBe(200);
  expect((await read()).questions.map((q) => q.decision_id)).not.toContain(pending[0]!.id);
});
