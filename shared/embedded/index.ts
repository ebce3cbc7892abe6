/**
 * Handoff's gate inside your own Strands agent (`handoff/embedded`): declare which of your
 * tools change the world, a threshold and how to ask the person; unsure calls are asked,
 * once per turn, and no answer means skip.
 */
export { EmbeddedGate, embeddedGate, EMBEDDED_INTERRUPT, DEFAULT_THRESHOLD } from './gate.ts';
export { DEFAULT_ASK_TIMEOUT_MS } from './ask.ts';
export { gateFields } from './fields.ts';
export type {
  Ask,
  EmbeddedGateOptions,
  GateAnswer,
  GatedTool,
  GateQuestion,
  GateRecord,
  SkipCause,
} from './types.ts';
export type { DeferReason } from '../gate/verdict.ts';
export type { Store } from '../store/store.ts';
export { JsonFileStore } from '../store/json-file-store.ts';
