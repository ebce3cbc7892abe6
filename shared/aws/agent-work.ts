/**
 * The agent function's work, off the request path: learning from an answer (`handoff.learn`)
 * and an assistant turn (`handoff.chat-turn`). Both may call the model for minutes; the API
 * answered long before. A learning failure is recorded and thrown, so Lambda retries it.
 */
import { log } from '../logging/log.ts';
import { learnFromAnswerById } from '../runs/learning.ts';
import type { EngineOf } from './lambda-engine.ts';
import { AgentEventSchema, parseEvent } from './lambda-events.ts';

export type AgentWorkResult =
  { learned: string; outcome: string } | { chat_id: string; turn_id: string; reply: string };

/** Runs one piece of model work an event names, in the event's workspace. */
export async function runAgentWork(engineOf: EngineOf, event: unknown): Promise<AgentWorkResult> {
  const work = parseEvent(AgentEventSchema, event, 'a handoff.learn or handoff.chat-turn event');
  const engine = engineOf(work.detail.workspace);
  if (work['detail-type'] === 'handoff.learn') {
    const outcome = await learnFromAnswerById(engine, work.detail.decision_id);
    log.info(`learned from ${work.detail.decision_id}: ${outcome.kind}`, {
      decision_id: work.detail.decision_id,
    });
    return { learned: work.detail.decision_id, outcome: outcome.kind };
  }
  const { chat_id, turn_id, message } = work.detail;
  // Loaded with the first turn: a container that only learns never loads the assistant.
  const { sendMessage } = await import('../assistant/chat-service.ts');
  const reply = await sendMessage(engine, chat_id, message, turn_id);
  log.info(`chat ${chat_id}: turn ${turn_id} answered`);
  return { chat_id, turn_id, reply: reply.text };
}
