/**
 * Questions a run started from a chat asked after the chat's turn had ended: on AWS the run
 * goes on in other functions, so its pause is found when the chat is read again (the page
 * re-reads, the API is polled). Each becomes a decision card, answerable in the chat.
 */
import type { Card, Turn } from '../chats/chat-records.ts';
import { DecisionSchema, RunSchema, type Decision } from '../records/runs.ts';
import { decisionsOfRun } from '../runs/decision-repository.ts';
import { getRecord, getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';

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

/**
 * The waiting questions a chat can show: those its cards name (read by id) and those its runs
 * asked (read by each run's key). Never every waiting question of the workspace.
 */
export async function waitingOfChat(store: Store, turns: readonly Turn[]): Promise<Decision[]> {
  const cards = turns.flatMap((t) => t.cards);
  const runIds = [...new Set(cards.flatMap((c) => (c.kind === 'run' ? [c.run_id] : [])))];
  const named = [...new Set(cards.flatMap((c) => (c.kind === 'decision' ? [c.decision_id] : [])))];
  const [ofRuns, byId] = await Promise.all([
    Promise.all(
      runIds.map(async (id) => {
        const run = await getRecord(store, 'runs', RunSchema, id);
        return run ? decisionsOfRun(store, run) : [];
      }),
    ),
    getRecords(store, 'decisions', DecisionSchema, named),
  ]);
  const waiting = new Map<string, Decision>();
  for (const d of [...ofRuns.flat(), ...byId]) if (d?.status === 'pending') waiting.set(d.id, d);
  return [...waiting.values()];
}
