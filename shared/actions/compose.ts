/**
 * Writes the words of an action for one item: a reply by the run's model (from the message,
 * the workflow's instructions and the person's profile), a ticket from the item itself.
 * The offline model writes an honest short reply from the message's facts, marked as such.
 */
import { Agent, type Model } from '@strands-agents/sdk';
import { OFFLINE_DRAFT_MARK, type ReplyFacts } from '../models/offline/reply.ts';
import { INSTRUCTIONS_MARKER, REPLY_MARKER } from '../models/offline/markers.ts';
import type { ItemSource, SourceItem } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import { ticketWords, type Words } from './words.ts';
import { HandoffError } from '../errors/index.ts';

/** Writes the words `action` carries for `item`; null when the action carries none. */
export type Composer = (item: SourceItem, action: string) => Promise<Words | null>;

/** What a reply is written with besides the message. */
export interface ReplyContext {
  instructions: string;
  /** The person the reply is from (their profile). */
  me: { name: string | null; address: string | null };
}

const SYSTEM_PROMPT = [
  'You write the body of an email reply for the person named below, to the message below.',
  "Answer what the message asks, in the sender's language, briefly and plainly, as the person would.",
  'Never invent facts, dates, prices or commitments the message and instructions do not give;',
  'where the person must supply something, say so in brackets, e.g. [confirm the date].',
  'Answer with the body only: no subject line, no preamble, no quoted original (it is added below the body).',
].join('\n');

/** The composer's prompt: the workflow's instructions, who the person is, and the message. */
export function replyPrompt(item: SourceItem, context: ReplyContext): string {
  const facts: ReplyFacts = {
    sender_name: item.sender.name,
    sender: item.sender.address,
    subject: item.subject,
    text: item.text.slice(0, 6000),
    me: context.me.name,
  };
  return [
    `${REPLY_MARKER} ${JSON.stringify(facts)}`,
    `${INSTRUCTIONS_MARKER} ${context.instructions.replace(/\s+/g, ' ').trim()}`,
    `The person: ${context.me.name ?? '(no name saved)'}${context.me.address ? ` <${context.me.address}>` : ''}`,
  ].join('\n');
}

/**
 * Runs the reply writer (one model turn, no tools) over one message; its body, and whether
 * the offline model wrote it.
 */
export async function composeReply(model: Model, item: SourceItem, context: ReplyContext): Promise<Words> {
  const agent = new Agent({
    id: 'reply_writer',
    name: 'reply_writer',
    model,
    systemPrompt: SYSTEM_PROMPT,
    printer: false,
  });
  const result = await agent.invoke(replyPrompt(item, context));
  const text = result.lastMessage.content
    .flatMap((b) => (b.type === 'textBlock' ? [b.text] : []))
    .join('\n')
    .trim();
  if (!text) throw new HandoffError('the model wrote no reply');
  return {
    action: 'draft_reply',
    title: null,
    body: text,
    by: text.includes(OFFLINE_DRAFT_MARK) ? 'offline' : 'model',
  };
}

/**
 * A composer over the run's model: replies by the model, tickets from the item, an
 * integration's words as its arguments are filled (`integrationWords`, by `source`).
 */
export function composerFor(
  model: Model,
  context: () => Promise<ReplyContext>,
  source?: () => Pick<ItemSource, 'wordsFor'>,
  run?: { store: Store; workflowId: string; runId: string },
): Composer {
  return async (item, action) => {
    if (action === 'file_ticket') return ticketWords(item);
    if (action === 'draft_reply') return composeReply(model, item, await context());
    if (!source || !run) return null;
    return source().wordsFor?.(action, item, { ...run, note: null, reasoning: null }) ?? null;
  };
}
