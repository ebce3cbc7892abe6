import type { EngineDeps } from '../runs/deps.ts';
import type { TurnLog } from './turn-log.ts';
import type { CardDeps } from './workflow-card.ts';

/** What the assistant's tools and gate share during one turn of one chat. */
export interface ChatTurn {
  engine: EngineDeps;
  chatId: string;
  log: TurnLog;
}

/** What a workflow card is built with, from the turn's engine. */
export function cardDeps(turn: ChatTurn): CardDeps {
  return {
    store: turn.engine.store,
    credentials: turn.engine.credentials,
    threshold: turn.engine.settings.confidenceThreshold,
  };
}
