import type { JSONValue, Message } from '@strands-agents/sdk';

/** Text an agent said. */
export interface MessageItem {
  readonly type: 'message';
  readonly agent: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** An ordinary tool call. */
export interface ToolCallItem {
  readonly type: 'tool_call';
  readonly agent: string;
  readonly toolUseId: string;
  readonly name: string;
  readonly input: JSONValue;
}

/** The result of an ordinary tool call (a rejected transfer is one of these, with status `error`). */
export interface ToolOutputItem {
  readonly type: 'tool_output';
  readonly agent: string;
  readonly toolUseId: string;
  readonly name: string;
  readonly status: 'success' | 'error';
  readonly output: JSONValue;
}

/**
 * The decision to hand off: the `transfer_to_*` call (`via: 'tool'`), or the structured
 * output a route resolved (`via: 'route'`; `toolUseId` is that output's tool use).
 */
export interface HandoffCallItem {
  readonly type: 'handoff_call';
  readonly agent: string;
  readonly source: string;
  readonly target: string;
  readonly toolUseId: string;
  readonly input: JSONValue;
  readonly via: 'tool' | 'route';
}

/** Control passed: from here on the target runs. */
export interface HandoffOutputItem {
  readonly type: 'handoff_output';
  readonly agent: string;
  readonly source: string;
  readonly target: string;
  readonly toolUseId: string;
}

export type RunItem = MessageItem | ToolCallItem | ToolOutputItem | HandoffCallItem | HandoffOutputItem;

/** The handoff a segment of the run ended with, to pair its call and result. */
export interface HandoffMark {
  readonly source: string;
  readonly target: string;
  readonly toolUseId: string;
  readonly via: 'tool' | 'route';
}

/** Turns the messages an agent produced into run items (plain JSON). */
export function itemsFromMessages(
  agent: string,
  messages: readonly Message[],
  mark?: HandoffMark,
): RunItem[] {
  const items: RunItem[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    const text: string[] = [];
    const flush = (): void => {
      if (text.length > 0) items.push({ type: 'message', agent, role: message.role, text: text.join('\n') });
      text.length = 0;
    };
    for (const block of message.content) {
      if (block.type === 'textBlock') {
        text.push(block.text);
        continue;
      }
      flush();
      if (block.type === 'toolUseBlock') {
        names.set(block.toolUseId, block.name);
        if (block.toolUseId === mark?.toolUseId) {
          items.push({
            type: 'handoff_call',
            agent,
            source: mark.source,
            target: mark.target,
            toolUseId: block.toolUseId,
            input: block.input,
            via: mark.via,
          });
        } else {
          items.push({
            type: 'tool_call',
            agent,
            toolUseId: block.toolUseId,
            name: block.name,
            input: block.input,
          });
        }
      } else if (block.type === 'toolResultBlock') {
        if (block.toolUseId === mark?.toolUseId) {
          const { source, target, toolUseId } = mark;
          items.push({ type: 'handoff_output', agent, source, target, toolUseId });
        } else {
          items.push({
            type: 'tool_output',
            agent,
            toolUseId: block.toolUseId,
            name: names.get(block.toolUseId) ?? 'unknown',
            status: block.status,
            output: resultValue(block.toJSON().toolResult.content),
          });
        }
      }
    }
    flush();
  }
  return items;
}

function resultValue(content: readonly unknown[]): JSONValue {
  const parts = content.map((part) => {
    const block = part as { json?: JSONValue; text?: string };
    return block.json !== undefined ? block.json : (block.text ?? null);
  });
  return parts.length === 1 ? (parts[0] ?? null) : parts;
}
