/**
 * The agent function's work, off the request path: learning from an answer (`handoff.learn`)
 * and an assistant turn (`handoff.chat-turn`). Both may call the model for minutes; the API
 * answered long before. A learning failure is recorded and thrown, so Lambda retries it; a
 * turn delivered twice is answered once (shared/assistant/turn-once.ts).
 */
import { log } from '../logging/log.ts';
import { learnFromAnswerById } from '../runs/learning.ts';
import type { EngineOf } from './lambda-engine.ts';
import { AgentEventSchema, parseEvent } from './lambda-events.ts';

export type AgentWorkResult =
  | { learned: string; outcome: string }
  | { chat_id: string; turn_id: string; reply: string; duplicate: boolean };

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
  const { sendMessageOnce } = await import('../assistant/turn-once.ts');
  // EventBridge delivers at least once: a turn already answered is not run again.
  const reply = await sendMessageOnce(engine, chat_id, message, turn_id);
  if (reply.duplicate) log.warn(`chat ${chat_id}: turn ${turn_id} was already answered; not run again`);
  else log.info(`chat ${chat_id}: turn ${turn_id} answered`);
  return { chat_id, turn_id, reply: reply.text, duplicate: reply.duplicate };
}
