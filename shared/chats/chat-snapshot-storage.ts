import type { Snapshot, SnapshotManifest, SnapshotStorage } from '@strands-agents/sdk';
import type { Store } from '../store/store.ts';
import { GraphSnapshotSchema } from '../runs/graph-state.ts';
import { getChat, updateChat } from './chat-repository.ts';

/**
 * Strands' snapshot storage, backed by the chat record: the latest session snapshot of each
 * of the chat's agents lives on the chat itself (JSON files locally, DynamoDB on AWS), so a
 * conversation survives a restart. Only the latest snapshot is kept; a chat has no checkpoints.
 * A restored agent keeps the system prompt it was built with this turn.
 */
export class ChatSnapshotStorage implements SnapshotStorage {
  constructor(
    private readonly store: Store,
    private readonly chatId: string,
  ) {}

  async saveSnapshot(params: Parameters<SnapshotStorage['saveSnapshot']>[0]): Promise<void> {
    if (!params.isLatest) return;
    const agentId = params.location.scopeId;
    await updateChat(this.store, this.chatId, (chat) => ({
      session: { ...chat.session, [agentId]: GraphSnapshotSchema.parse(params.snapshot) },
    }));
  }

  async loadSnapshot(params: Parameters<SnapshotStorage['loadSnapshot']>[0]): Promise<Snapshot | null> {
    const chat = await getChat(this.store, this.chatId);
    const snapshot = chat.session[params.location.scopeId];
    if (!snapshot) return null;
    // The prompt is the code's, built each turn (it carries the chat's draft): never the stored one.
    const { systemPrompt: _stored, ...data } = snapshot.data;
    return { ...snapshot, data };
  }

  async listSnapshotIds(): Promise<string[]> {
    return [];
  }

  async deleteSession(): Promise<void> {
    await updateChat(this.store, this.chatId, () => ({ session: {} }));
  }

  async loadManifest(): Promise<SnapshotManifest> {
    return { schemaVersion: '1.0', updatedAt: new Date().toISOString() };
  }

  async saveManifest(): Promise<void> {}
}
