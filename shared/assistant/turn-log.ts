import type { FeedEvent } from '../events/feed.ts';
import type { Card, Confirm } from '../chats/chat-records.ts';

/** Emits onto the chat's feed channel `chat:<id>`. */
export type ChatEmit = (kind: FeedEvent['kind'], text: string, data?: Record<string, unknown>) => void;

/** The channel of a chat on the live feed. */
export function chatChannel(chatId: string): string {
  return `chat:${chatId}`;
}

/**
 * What one turn produced besides its text: the cards the chat shows, the workflow saved and
 * the run started (for `--json`), and the confirmation it left waiting.
 */
export class TurnLog {
  readonly cards: Card[] = [];
  workflowId: string | undefined;
  runId: string | undefined;
  confirm: Confirm | undefined;

  constructor(readonly emit: ChatEmit) {}

  card(card: Card): void {
    this.cards.push(card);
  }
}
