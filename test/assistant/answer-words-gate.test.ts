/**
 * The assistant's answer_decision carries the words it saves: its confirm card shows them
 * (the draft, or the body the model gave), the person's yes saves exactly them, and an
 * edit for an action without words is refused before anything is asked.
 */
import type { Model } from '@strands-agents/sdk';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { getDecision } from '../../shared/runs/decision-repository.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { DEMO_MESSAGES } from '../../shared/sources/maildir/demo.ts';
import { systemText, toolNames, type PlannedTurn, type TurnInput } from '../../shared/models/turn-model.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, type ToolResults } from '../support/scripted-model.ts';

type Call = { name: string; input: Record<string, unknown> };

/** The operator makes `calls` one turn at a time, then says it is done. */
function operator(calls: Call[]): ScriptedModel {
  let made = 0;
  return new ScriptedModel((_results: ToolResults, input: TurnInput): PlannedTurn => {
    if (toolNames(input.options).includes('transfer_to_operator'))
      return { toolCalls: [{ name: 'transfer_to_operator', input: {} }] };
    expect(systemText(input.options)).toMatch(/Operator/);
    const next = calls[made++];
    return next ? { toolCalls: [next] } : { text: 'Asked.' };
  });
}

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

it('the confirm card shows the words answer_decision saves, and the yes saves exactly them', async () => {
  let model: Model = new OfflineModel(); // the run's own model
  fx = await engineFixture({ messages: [...DEMO_MESSAGES], model: () => model });
  const { deps, store } = fx;
  const paused = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
  expect(paused.status).toBe('waiting');
  const pending = (await store.listWithStatus('decisions', 'pending')) as Decision[];
  const question = pending.find((d) => d.drafts?.some((w) => w.action === 'draft_reply'));
  expect(question).toBeDefined();

  // Words for an action that carries none: refused on the card, nothing waits for a yes.
  model = operator([
    { name: 'answer_decision', input: { decision_id: question!.id, action: 'archive', body: 'Hi' } },
  ]);
  const refused = await sendMessage(deps, undefined, 'archive it and write to them');
  expect(refused.confirm).toBeUndefined();
  expect((await getDecision(store, question!.id)).status).toBe('pending');

  const body = 'Thanks, a call on Thursday works.\nBest, Me';
  model = operator([
    {
      name: 'answer_decision',
      input: { decision_id: question!.id, action: 'draft_reply', note: 'always reply', body },
    },
  ]);
  const asked = await sendMessage(deps, refused.chat_id, 'reply to them that Thursday works');
  expect(asked.confirm?.summary).toContain(`saving: “${body}”`);
  expect((await getDecision(store, question!.id)).status).toBe('pending');

  const done = await sendMessage(deps, refused.chat_id, 'yes');
  expect(done.text).toMatch(/Recorded draft_reply/);
  expect((await getDecision(store, question!.id)).answer).toMatchObject({ action: 'draft_reply', body });

  // Carried out (at once while other questions wait): the saved reply is the approved text, not the note.
  const dir = path.join(fx.maildir, '.Drafts', 'cur');
  const names = await fs.readdir(dir);
  const mails = await Promise.all(names.map(async (n) => fs.readFile(path.join(dir, n), 'utf8')));
  const replies = [];
  for (const raw of mails) if ((await simpleParser(raw)).inReplyTo === question!.item_id) replies.push(raw);
  expect(replies).toHaveLength(1);
  const text = (await simpleParser(replies[0]!)).text!.replace(/\r\n/g, '\n');
  expect(text.startsWith(body)).toBe(true);
  expect(replies[0]).not.toContain('always reply');
});
