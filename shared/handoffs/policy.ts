import { Message, TextBlock } from '@strands-agents/sdk';

/** Estimated tokens of a message: its JSON length / 4, rounded up. */
export function estimateTokens(message: Message): number {
  return Math.ceil(JSON.stringify(message.toJSON()).length / 4);
}

/**
 * The most recent messages whose estimated tokens fit in `budget`, oldest first. The cut
 * never leaves a tool result without its call (see `dropOrphanedResults`).
 */
export function applyBudget(messages: readonly Message[], budget: number): Message[] {
  let used = 0;
  let start = messages.length;
  while (start > 0) {
    const cost = estimateTokens(messages[start - 1]!);
    if (used + cost > budget) break;
    used += cost;
    start -= 1;
  }
  return dropOrphanedResults(messages.slice(start));
}

/** Drops leading messages that answer tool calls outside the slice; providers refuse those. */
export function dropOrphanedResults(messages: readonly Message[]): Message[] {
  const calls = new Set<string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'toolUseBlock') calls.add(b.toolUseId);
  let start = 0;
  while (start < messages.length) {
    const results = messages[start]!.content.filter((b) => b.type === 'toolResultBlock');
    if (results.length === 0 || results.every((b) => calls.has(b.toolUseId))) break;
    start += 1;
  }
  return messages.slice(start);
}

/**
 * The forwarded history as one message. Strands messages carry no system role (the system
 * prompt is separate and belongs to the target), so the collapsed history is a single
 * `user` message framed as context handed over by the source agent, with tool calls and
 * results rendered as text.
 */
export function collapse(messages: readonly Message[], source: string, target: string): Message {
  const lines = messages.flatMap((message) =>
    message.content.map((block) => renderBlock(message.role, block)),
  );
  const text = [
    `[Handoff context] ${source} handed this conversation to ${target}. The history so far:`,
    ...lines.filter((line) => line !== ''),
    '[End of handoff context] Continue from here.',
  ].join('\n');
  return new Message({ role: 'user', content: [new TextBlock(text)] });
}

function renderBlock(role: string, block: Message['content'][number]): string {
  switch (block.type) {
    case 'textBlock':
      return `${role}: ${block.text}`;
    case 'toolUseBlock':
      return `${role} called ${block.name} ${JSON.stringify(block.input)}`;
    case 'toolResultBlock':
      return `tool result (${block.status}): ${JSON.stringify(block.toJSON().toolResult.content)}`;
    default:
      return '';
  }
}
