import { BeforeModelCallEvent, ConversationManager, type LocalAgent } from '@strands-agents/sdk';

type ReduceOptions = Parameters<ConversationManager['reduce']>[0];

/**
 * Keeps the executor's context bounded *during* a run, not only after it: before each
 * model call, the history is cut to the first message (the task) plus the most recent
 * messages, starting at an assistant turn so every tool result keeps its tool call.
 * A run works through pages; the model never sees the whole inbox at once.
 */
export class PagedWindow extends ConversationManager {
  readonly name = 'handoff:paged-window';

  constructor(private readonly keep: number) {
    super();
  }

  override initAgent(agent: LocalAgent): void {
    super.initAgent(agent);
    agent.addHook(BeforeModelCallEvent, (event) => void this.reduce({ agent: event.agent } as ReduceOptions));
  }

  reduce({ agent }: ReduceOptions): boolean {
    const messages = agent.messages;
    if (messages.length <= this.keep + 1) return false;
    let start = messages.length - this.keep;
    while (start < messages.length && messages[start]!.role !== 'assistant') start++;
    if (start >= messages.length) return false;
    messages.splice(1, start - 1);
    return true;
  }
}
