import type { FeedEvent } from '../events/feed.ts';
import type { Card, Confirm, WorkflowCard } from '../chats/chat-records.ts';

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
  /** A confirmation asked in an earlier turn that is still waiting after this one. */
  pending: Confirm | undefined;
  /** What a refinement of the draft changed, in words (set by validate_workflow). */
  changed: string[] | undefined;
  /** Previews made this turn, by workflow id (the confirmation card shows the latest). */
  readonly previews = new Map<string, WorkflowCard['preview']>();

  constructor(readonly emit: ChatEmit) {}

  card(card: Card): void {
    this.cards.push(card);
  }

  /** The preview made this turn of workflow `id`, or null. */
  previewOf(id: string): WorkflowCard['preview'] {
    return this.previews.get(id) ?? null;
  }
}
