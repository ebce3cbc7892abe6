/**
 * Chats in the store: create, read, rename, delete, and the transcript. Every
 * change to a chat record is a conditional update on its version.
 */
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { newId } from '../store/ids.ts';
import { getRecord, getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import {
  CHAT_ID,
  CHAT_SCHEMA_VERSION,
  ChatSchema,
  TURNS_PER_PAGE,
  TurnPageSchema,
  type Chat,
  type Turn,
} from './chat-records.ts';

/** A chat as `handoff chats` and the Chat page list it (a page at a time: chat-list.ts). */
export interface ChatSummary {
  chat_id: string;
  title: string;
  turns: number;
  updated_at: string;
}

const NEW_TITLE = 'New chat';

/** Creates an empty chat. */
export async function createChat(store: Store, title = NEW_TITLE): Promise<Chat> {
  const now = new Date().toISOString();
  const record = {
    id: newId('chat'),
    schemaVersion: CHAT_SCHEMA_VERSION,
    title: cleanTitle(title),
    created_at: now,
    updated_at: now,
    turn_count: 0,
    confirm: null,
    draft: null,
    session: {},
  };
  return ChatSchema.parse(await store.create('chats', record));
}

/** The chat, or NotFoundError naming how to find one. */
export async function getChat(store: Store, chatId: string): Promise<Chat> {
  const chat = CHAT_ID.test(chatId) ? await getRecord(store, 'chats', ChatSchema, chatId) : undefined;
  if (!chat)
    throw new NotFoundError(`no chat "${chatId}": see \`handoff chats\`, or start one without --chat`);
  return chat;
}

/** Writes `change` over the chat read now (so nothing another step wrote is lost). */
export async function updateChat(
  store: Store,
  chatId: string,
  change: (chat: Chat) => Partial<Omit<Chat, 'id' | 'version'>>,
): Promise<Chat> {
  const chat = await getChat(store, chatId);
  const next = { ...chat, ...change(chat), updated_at: new Date().toISOString() };
  return ChatSchema.parse(await store.update('chats', next, chat.version));
}

/** Renames a chat; an empty title is refused. */
export async function renameChat(store: Store, chatId: string, title: string): Promise<Chat> {
  if (title.trim() === '') throw new InvalidInputError('the title is empty: give the chat a name');
  return updateChat(store, chatId, () => ({ title: cleanTitle(title) }));
}

/** Deletes a chat, its transcript and its session. */
export async function deleteChat(store: Store, chatId: string): Promise<void> {
  const chat = await getChat(store, chatId);
  for (let page = 0; page * TURNS_PER_PAGE < chat.turn_count; page++)
    await store.delete('chat_turns', pageId(chat.id, page));
  await store.delete('chats', chat.id);
}

/** Appends turns to the transcript and counts them on the chat (titling a new chat by its first message). */
export async function appendTurns(store: Store, chatId: string, turns: readonly Turn[]): Promise<Chat> {
  const chat = await getChat(store, chatId);
  let count = chat.turn_count;
  for (const turn of turns) {
    const page = Math.floor(count / TURNS_PER_PAGE);
    const id = pageId(chat.id, page);
    const stored = await getRecord(store, 'chat_turns', TurnPageSchema, id);
    const record = { id, chat_id: chat.id, page, turns: [...(stored?.turns ?? []), turn] };
    await store.put('chat_turns', record);
    count += 1;
  }
  const first = turns.find((t) => t.role === 'user');
  return updateChat(store, chatId, (c) => ({
    turn_count: count,
    ...(c.title === NEW_TITLE && first ? { title: cleanTitle(first.text) } : {}),
  }));
}

/** The whole transcript, oldest first. */
export async function readTurns(store: Store, chat: Chat): Promise<Turn[]> {
  const pages = Math.ceil(chat.turn_count / TURNS_PER_PAGE);
  const ids = Array.from({ length: pages }, (_, page) => pageId(chat.id, page));
  const records = await getRecords(store, 'chat_turns', TurnPageSchema, ids);
  return records.flatMap((r) => r?.turns ?? []);
}

function pageId(chatId: string, page: number): string {
  return `${chatId}:${String(page).padStart(5, '0')}`;
}

function cleanTitle(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || NEW_TITLE;
}
