/** What the offline assistant reads from a conversation: the last request, tool results, the draft. */
import type { Message } from '@strands-agents/sdk';
import { DRAFT_MARKER } from './markers.ts';

export type Json = Record<string, unknown>;

/** The text of the last message the person wrote (a text block of a user message). */
export function lastRequest(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const text = m.content
      .flatMap((b) => (b.type === 'textBlock' ? [b.text] : []))
      .join('\n')
      .trim();
    if (text) return text;
  }
  return '';
}

/** Every tool result in the history by tool name (the latest of each). */
export function allResults(messages: Message[]): Map<string, unknown> {
  const names = new Map<string, string>();
  const results = new Map<string, unknown>();
  for (const m of messages)
    for (const b of m.content) {
      if (b.type === 'toolUseBlock') names.set(b.toolUseId, b.name);
      if (b.type === 'toolResultBlock') {
        const name = names.get(b.toolUseId);
        const part = b.content[0] as { type?: string; json?: unknown; text?: string } | undefined;
        let value: unknown = part?.json;
        if (value === undefined && part?.text !== undefined) {
          try {
            value = JSON.parse(part.text);
          } catch {
            value = { error: part.text, status: b.status };
          }
        }
        if (name)
          results.set(name, b.status === 'error' ? { error: part?.text ?? 'error', status: 'error' } : value);
      }
    }
  return results;
}

/** The chat's draft workflow, from the prompt's draft line (null: the chat has none). */
export function draftIn(system: string): Json | null {
  const line = system.split('\n').find((l) => l.startsWith(DRAFT_MARKER));
  if (!line) return null;
  try {
    return JSON.parse(line.slice(DRAFT_MARKER.length).trim()) as Json;
  } catch {
    return null;
  }
}
