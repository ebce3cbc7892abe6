/**
 * Questions a run started from a chat asked after the chat's turn had ended: on AWS the run
 * goes on in other functions, so its pause is found when the chat is read again (the page
 * re-reads, the API is polled). Each becomes a decision card, answerable in the chat.
 */
import type { Card, Turn } from '../chats/chat-records.ts';
import type { Decision } from '../records/runs.ts';

type DecisionCard = Extract<Card, { kind: 'decision' }>;

/** The card of a waiting decision, as the chat shows it. */
export function decisionCard(d: Decision): DecisionCard {
  return {
    kind: 'decision',
    decision_id: d.id,
    run_id: d.run_id,
    subject: d.subject,
    sender: d.sender,
    suggested: d.suggested_action,
    options: [...new Set([...d.options, 'skip'])],
  };
}

/** Waiting decisions of the chat's runs that no turn shows yet, as cards. */
export function lateQuestionCards(turns: readonly Turn[], pending: readonly Decision[]): DecisionCard[] {
  const cards = turns.flatMap((t) => t.cards);
  const runs = new Set(cards.flatMap((c) => (c.kind === 'run' ? [c.run_id] : [])));
  const shown = new Set(cards.flatMap((c) => (c.kind === 'decision' ? [c.decision_id] : [])));
  return pending.filter((d) => runs.has(d.run_id) && !shown.has(d.id)).map(decisionCard);
}
