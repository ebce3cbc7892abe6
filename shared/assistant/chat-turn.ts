import type { EngineDeps } from '../runs/deps.ts';
import type { TurnLog } from './turn-log.ts';

/** What the assistant's tools and gate share during one turn of one chat. */
export interface ChatTurn {
  engine: EngineDeps;
  chatId: string;
  log: TurnLog;
}
