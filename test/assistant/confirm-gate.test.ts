import type { Model } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { readTurns, getChat } from '../../shared/chats/chat-repository.ts';
import { COLLECTIONS, type Store } from '../../shared/store/store.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { systemText, toolNames, type PlannedTurn, type TurnInput } from '../../shared/models/turn-model.ts';
import { DEMO_MESSAGES } from '../../shared/sources/maildir/demo.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';
import { hashTree } from '../support/hash-tree.ts';
import { ScriptedModel, type ToolResults } from '../support/scripted-model.ts';

type Call = { name: string; input: Record<string, unknown> };

/**
 * One scripted model for the whole assistant: the triage agent transfers to `to`, the
 * specialist makes `calls` one turn at a time (seeing each result), then says it is done.
 */
function assistantModel(to: 'builder' | 'operator', calls: Call[], seen: ToolResults[]): ScriptedModel {
  return new ScriptedModel((results: ToolResults, input: TurnInput): PlannedTurn => {
    const tools = toolNames(input.options);
    if (tools.includes(`transfer_to_${to}`)) return { toolCalls: [{ name: `transfer_to_${to}`, input: {} }] };
    expect(systemText(input.options)).toMatch(to === 'builder' ? /Builder/ : /Operator/);
    seen.push(results);
    const done = seen.length - 1;
    const next = calls[done];
    return next ? { toolCalls: [next] } : { text: 'Asked.' };
  });
}

/** Every record of every collection but the chat's own. */
async function snapshot(store: Store): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of COLLECTIONS) if (c !== 'chats' && c !== 'chat_turns') out[c] = await store.list(c);
  return out;
}

const CONFIG = (path: string) => ({
  id: 'newsletters',
  name: 'Newsletters',
  instructions: 'Archive newsletters.',
  trigger: { manual: true },
  source: { type: 'maildir', path },
  actions: [{ name: 'archive' }],
  human_gate: { options: ['archive', 'skip'] },
});

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

describe("the assistant's gate", () => {
  it('a save, a run, an answer and rule changes the model asks for change nothing without the person’s yes', async () => {
    const seen: ToolResults[] = [];
    let model: Model = new OfflineModel();
    fx = await engineFixture({ messages: [...DEMO_MESSAGES], model: () => model });
    const { deps, store } = fx;
    // A waiting decision and a rule to revoke, so every world-changing tool has something to change.
    const paused = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    expect(paused.status).toBe('waiting');
    const decision = (await store.listWithStatus('decisions', 'pending'))[0]!;
    const rule = await addRule(store, {
      workflowId: null,
      match: { domain: 'example.org' },
      action: 'archive',
      note: null,
    });

    const before = await snapshot(store);
    const mail = await hashTree(fx.maildir);
    model = assistantModel(
      'builder',
      [
        { name: 'validate_workflow', input: { config: CONFIG(fx.maildir) } },
        { name: 'preview_workflow', input: {} },
        { name: 'save_workflow', input: {} },
        { name: 'delete_workflow', input: { workflow_id: 'inbox' } },
      ],
      seen,
    );
    const built = await sendMessage(deps, undefined, 'archive newsletters in my inbox');
    seen.length = 0;
    model = assistantModel(
      'operator',
      [
        { name: 'start_run', input: { workflow_id: 'inbox' } },
        { name: 'answer_decision', input: { decision_id: decision.id, action: 'archive' } },
        { name: 'add_rule', input: { match: { sender: 'a@b.example' }, action: 'archive' } },
        { name: 'revoke_rule', input: { rule_id: rule.id } },
      ],
      seen,
    );
    const operated = await sendMessage(deps, built.chat_id, 'run the inbox and answer its question');

    // Prepare/Act done: nothing outside the chat changed, the mail included.
    expect(await snapshot(store)).toEqual(before);
    expect(await hashTree(fx.maildir)).toEqual(mail);
    // Each call came back to the model as "not done yet", and the last one waits as a card.
    for (const results of seen.slice(1))
      expect(JSON.stringify(results)).toMatch(/Not done yet: the person must confirm first/);
    expect(built.confirm?.tool).toBe('delete_workflow');
    expect(operated.confirm).toMatchObject({ tool: 'revoke_rule', summary: `Revoke rule ${rule.id}` });
    expect(built.workflow_id).toBeUndefined();
    expect(operated.run_id).toBeUndefined();
    const turns = await readTurns(store, await getChat(store, built.chat_id));
    const cards = turns.flatMap((t) => t.cards.map((c) => c.kind));
    expect(cards).toEqual(expect.arrayContaining(['handoff', 'preview', 'confirm']));

    // A "no" drops the step; nothing changes.
    const declined = await sendMessage(deps, built.chat_id, 'no');
    expect(declined.text).toMatch(/not done/);
    expect(await snapshot(store)).toEqual(before);
    expect((await getChat(store, built.chat_id)).confirm).toBeNull();
  });

  it('carries out the step only on the yes, exactly as it was shown', async () => {
    const seen: ToolResults[] = [];
    let model = assistantModel('builder', [], seen);
    fx = await engineFixture({ messages: [...DEMO_MESSAGES], model: () => model });
    const { deps, store } = fx;
    model = assistantModel(
      'builder',
      [
        { name: 'validate_workflow', input: { config: CONFIG(fx.maildir) } },
        { name: 'save_workflow', input: {} },
      ],
      seen,
    );
    const asked = await sendMessage(deps, undefined, 'archive newsletters');
    expect(await store.get('workflows', 'newsletters')).toBeUndefined();
    const saved = await sendMessage(deps, asked.chat_id, 'yes');
    expect(saved).toMatchObject({ workflow_id: 'newsletters' });
    expect(await store.get('workflows', 'newsletters')).toMatchObject(CONFIG(fx.maildir));
    expect(fx.events.filter((e) => e.channel === `chat:${asked.chat_id}`).map((e) => e.kind)).toEqual(
      expect.arrayContaining(['handoff', 'tool_start', 'tool_end', 'workflow_saved', 'done']),
    );
    // A second yes has nothing waiting: it goes to the assistant, and saves nothing twice.
    expect((await getChat(store, asked.chat_id)).confirm).toBeNull();
  });

  it('a malformed config from the model comes back to it as errors; nothing is drafted or saved', async () => {
    const seen: ToolResults[] = [];
    let model = assistantModel('builder', [], seen);
    fx = await engineFixture({ messages: [], model: () => model });
    const { deps, store } = fx;
    const before = await snapshot(store);
    model = assistantModel(
      'builder',
      [
        {
          name: 'validate_workflow',
          input: { config: { ...CONFIG(fx.maildir), id: 'Not A Slug', trigger: { schedule: 'at eight' } } },
        },
        {
          name: 'validate_workflow',
          input: {
            config: {
              ...CONFIG(fx.maildir),
              actions: [{ name: 'notion__create_page' }],
              human_gate: { options: ['skip'] },
            },
          },
        },
        { name: 'validate_workflow', input: { config: 'id: yaml-not-json' } },
        { name: 'save_workflow', input: {} },
      ],
      seen,
    );
    const reply = await sendMessage(deps, undefined, 'archive newsletters');
    const [slug, registry, notObject, save] = seen.slice(1).map((r) => JSON.stringify(r));
    expect(slug).toMatch(/"ok":false/);
    expect(slug).toMatch(/id: must be a slug/);
    expect(registry).toMatch(/names no integration \\"notion\\" in the registry/);
    expect(notObject).toMatch(/config must be a workflow object/);
    expect(save).toMatch(/no valid draft to save/);
    expect(reply.confirm).toBeUndefined();
    expect((await getChat(store, reply.chat_id)).draft).toBeNull();
    expect(await snapshot(store)).toEqual(before);
  });

  it('a step that could never be carried out is refused to the model at once, and nothing waits for a yes', async () => {
    const seen: ToolResults[] = [];
    let model = assistantModel('operator', [], seen);
    fx = await engineFixture({ messages: [], model: () => model });
    model = assistantModel(
      'operator',
      [
        { name: 'answer_decision', input: { decision_id: 'dec_nope', action: 'archive' } },
        { name: 'revoke_rule', input: { rule_id: 'rule_nope' } },
        { name: 'start_run', input: { workflow_id: 'no-such-workflow' } },
      ],
      seen,
    );
    const reply = await sendMessage(fx.deps, undefined, 'answer it');
    const [answer, revoke, run] = seen.slice(1).map((r) => JSON.stringify(r));
    expect(answer).toMatch(/no waiting decision \\"dec_nope\\"/);
    expect(revoke).toMatch(/no rule \\"rule_nope\\"/);
    expect(run).toMatch(/no workflow \\"no-such-workflow\\"/);
    expect(reply.confirm).toBeUndefined();
    expect((await getChat(fx.store, reply.chat_id)).confirm).toBeNull();
  });
});
