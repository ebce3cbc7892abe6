import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CHAT_WINDOW } from '../../shared/assistant/assistant.ts';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { ChatSnapshotStorage } from '../../shared/chats/chat-snapshot-storage.ts';
import {
  createChat,
  deleteChat,
  getChat,
  readTurns,
  renameChat,
} from '../../shared/chats/chat-repository.ts';
import { TURNS_PER_PAGE } from '../../shared/chats/chat-records.ts';
import { pageOfChats } from '../../shared/chats/chat-list.ts';
import { NotFoundError } from '../../shared/errors/index.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { toolNames } from '../../shared/models/turn-model.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { ScriptedModel } from '../support/scripted-model.ts';

/** The triage agent answers itself, saying how many messages it was shown. */
function countingModel(seen: number[]): ScriptedModel {
  return new ScriptedModel((_results, input) => {
    expect(toolNames(input.options)).toContain('transfer_to_builder');
    seen.push(input.messages.length);
    return { text: `I was shown ${input.messages.length} messages.` };
  });
}

/** An engine over `store` whose only part a chat of small talk needs is the model. */
function engineOver(store: Store, seen: number[], events: string[] = []): EngineDeps {
  return {
    store,
    models: async () => countingModel(seen),
    emit: (channel: string, kind: string) => void events.push(`${channel} ${kind}`),
    settings: { confidenceThreshold: 0.7, decisionTtlHours: 72, uiBaseUrl: 'http://ui.test', pageSize: 10 },
  } as unknown as EngineDeps;
}

type Backend = { name: string; open: () => Promise<{ store: Store; reopen: () => Store }> };

const dynamo = dynaliteTables('handoff-chats');
const BACKENDS: Backend[] = [
  {
    name: 'JSON files',
    open: async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-chats-'));
      return { store: new JsonFileStore(dir), reopen: () => new JsonFileStore(dir) };
    },
  },
  {
    name: 'DynamoDB (dynalite)',
    open: async () => {
      const store = await dynamo();
      return { store, reopen: () => store };
    },
  },
];

describe.each(BACKENDS)('chats as Strands sessions in the store: $name', ({ open }) => {
  it('a conversation survives a restart: the next turn is shown the history the store kept', async () => {
    const { store, reopen } = await open();
    const seen: number[] = [];
    const events: string[] = [];
    const first = await sendMessage(engineOver(store, seen, events), undefined, 'hello there');
    expect(first.text).toBe('I was shown 1 messages.');
    expect(events).toEqual(
      expect.arrayContaining([`chat:${first.chat_id} delta`, `chat:${first.chat_id} done`]),
    );

    // A new process: a fresh store object, fresh agents; the session comes back from the store.
    const second = await sendMessage(engineOver(reopen(), seen, events), first.chat_id, 'and again');
    expect(second.text).toBe('I was shown 3 messages.');
    const chat = await getChat(reopen(), first.chat_id);
    const session = chat.session.assistant!;
    expect(session.scope).toBe('agent');
    expect(JSON.stringify(session.data)).toContain('and again');
    expect((await readTurns(reopen(), chat)).map((t) => `${t.role}: ${t.text}`)).toEqual([
      'user: hello there',
      'assistant: I was shown 1 messages.',
      'user: and again',
      'assistant: I was shown 3 messages.',
    ]);
  });

  it('keeps history bounded per model call, and the transcript whole, however long the chat', async () => {
    const { store } = await open();
    const seen: number[] = [];
    const engine = engineOver(store, seen);
    let chatId: string | undefined;
    for (let i = 0; i < 14; i++) chatId = (await sendMessage(engine, chatId, `message ${i}`)).chat_id;
    expect(Math.max(...seen)).toBeLessThanOrEqual(CHAT_WINDOW + 1);
    expect(seen.at(-1)).toBeLessThanOrEqual(CHAT_WINDOW + 1);
    const chat = await getChat(store, chatId!);
    const turns = await readTurns(store, chat);
    expect(turns).toHaveLength(28); // three pages of ten
    expect(chat.turn_count).toBeGreaterThan(2 * TURNS_PER_PAGE);
    expect(turns[0]!.text).toBe('message 0');
    expect(turns.at(-2)!.text).toBe('message 13');
    expect(JSON.stringify(chat.session.assistant!.data)).not.toContain('"message 1"');
  });

  it('lists, renames and deletes chats (transcript and session with them)', async () => {
    const { store } = await open();
    const a = await createChat(store);
    const b = await sendMessage(engineOver(store, []), undefined, 'Weekly digest please');
    expect((await pageOfChats(store, { limit: 50 })).items.map((c) => c.chat_id)).toEqual(
      expect.arrayContaining([a.id, b.chat_id]),
    );
    expect((await getChat(store, b.chat_id)).title).toBe('Weekly digest please');
    expect((await renameChat(store, b.chat_id, '  Digest  ')).title).toBe('Digest');
    await expect(renameChat(store, b.chat_id, '   ')).rejects.toThrow(/title is empty/);
    await deleteChat(store, b.chat_id);
    await expect(getChat(store, b.chat_id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.list('chat_turns')).toEqual([]);
    expect((await pageOfChats(store, { limit: 50 })).items.map((c) => c.chat_id)).toEqual([a.id]);
  });

  it('the snapshot storage keeps the latest snapshot of each agent and nothing for an unknown one', async () => {
    const { store } = await open();
    const chat = await createChat(store);
    const storage = new ChatSnapshotStorage(store, chat.id);
    const location = { sessionId: chat.id, scope: 'agent' as const, scopeId: 'assistant' };
    expect(await storage.loadSnapshot({ location })).toBeNull();
    const snapshot = {
      scope: 'agent' as const,
      schemaVersion: '1.0',
      createdAt: 'now',
      data: { messages: [] },
      appData: {},
    };
    await storage.saveSnapshot({ location, snapshotId: 'x', isLatest: false, snapshot });
    expect(await storage.loadSnapshot({ location })).toBeNull(); // checkpoints are not kept
    await storage.saveSnapshot({ location, snapshotId: 'latest', isLatest: true, snapshot });
    expect(await storage.loadSnapshot({ location })).toEqual(snapshot);
    expect(await storage.loadSnapshot({ location: { ...location, scopeId: 'builder' } })).toBeNull();
  });
});
