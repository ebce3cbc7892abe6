import { z } from 'zod';
import type { Collection } from '../store/store.ts';
import { errorMessage } from '../errors/index.ts';

export const SESSIONS: Collection = 'sessions';
export const USAGE: Collection = 'usage';

/**
 * The entries of a run's session trace, in the order they happened. Text fields
 * (tool inputs and outputs, model output) are truncated when recorded, so one
 * run's trace stays bounded.
 */
const base = { at: z.string(), node: z.string() };

export const NodeStartEntrySchema = z.looseObject({ kind: z.literal('node_start'), ...base });

export const NodeEndEntrySchema = z.looseObject({
  kind: z.literal('node_end'),
  ...base,
  ms: z.number(),
  status: z.string(),
  error: z.string().optional(),
});

/** A tool call the resilient provider repaired in a turn, instead of sampling the turn again. */
export const RepairNoteSchema = z.looseObject({
  /** `failed_generation` (the endpoint refused the turn and handed its text back) or `stream`. */
  source: z.string(),
  tools: z.array(z.string()),
  /** What was fixed: `trailing comma`, `stray quote after a number`, ... */
  fixes: z.array(z.string()),
  /** The raw text as the endpoint handed it back, and the arguments carried on (both clipped). */
  before: z.string(),
  after: z.string(),
  detail: z.string(),
});

/** A request of a turn that was sent again: throttled, a server error, or a call past repair. */
export const RetryNoteSchema = z.looseObject({
  reason: z.string(),
  /** The attempt that failed (1 = the first request). */
  attempt: z.number().int(),
  wait_ms: z.number(),
  /** Whether the wait came from the endpoint's Retry-After. */
  retry_after: z.boolean(),
  status: z.number().int().nullable(),
  detail: z.string(),
});

export const ModelEntrySchema = z.looseObject({
  kind: z.literal('model'),
  ...base,
  model_id: z.string(),
  ms: z.number(),
  /** Messages in the conversation sent to the model, and their size as JSON. */
  input_messages: z.number().int(),
  input_chars: z.number().int(),
  /** 0 with `usage_unknown`: the endpoint reported no usage for the turn. */
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** True when the endpoint reported no usage (a turn rebuilt from a refused generation). */
  usage_unknown: z.boolean().optional(),
  /** Null when unknown: the model id has no price in the table, or the usage is unknown. */
  cost_usd: z.number().nullable(),
  stop_reason: z.string(),
  output: z.string(),
  error: z.string().optional(),
  /** Present when the resilient provider repaired or re-sent this turn. */
  repairs: z.array(RepairNoteSchema).optional(),
  retries: z.array(RetryNoteSchema).optional(),
});

export const ToolEntrySchema = z.looseObject({
  kind: z.literal('tool'),
  ...base,
  tool: z.string(),
  tool_use_id: z.string(),
  /** JSON text of what the tool was called with (after the gate's rewrite). */
  input: z.string(),
  output: z.string(),
  /** `success`, `error`, or `cancelled` when a hook (the gate) stopped the tool body. */
  status: z.string(),
  ms: z.number(),
});

export const PauseEntrySchema = z.looseObject({
  kind: z.literal('pause'),
  ...base,
  interrupt_id: z.string(),
  name: z.string(),
  reason: z.string(),
});

export const ResumeEntrySchema = z.looseObject({
  kind: z.literal('resume'),
  ...base,
  interrupt_ids: z.array(z.string()),
});

/** The executor handed an item to a specialist: its route_item call, as the handoff's call item. */
export const HandoffCallEntrySchema = z.looseObject({
  kind: z.literal('handoff_call'),
  ...base,
  source: z.string(),
  target: z.string(),
  tool_use_id: z.string(),
  item_id: z.string(),
  /** `route`: the executor named an intent and code chose the specialist. */
  via: z.string(),
  /** JSON text of the call's input (item id, intent, reasoning). */
  input: z.string(),
});

/** The handoff's output item: from here on the target decides the item. */
export const HandoffOutputEntrySchema = z.looseObject({
  kind: z.literal('handoff_output'),
  ...base,
  source: z.string(),
  target: z.string(),
  tool_use_id: z.string(),
  item_id: z.string(),
});

export const TraceEntrySchema = z.discriminatedUnion('kind', [
  NodeStartEntrySchema,
  NodeEndEntrySchema,
  ModelEntrySchema,
  ToolEntrySchema,
  PauseEntrySchema,
  ResumeEntrySchema,
  HandoffCallEntrySchema,
  HandoffOutputEntrySchema,
]);

export type TraceEntry = z.infer<typeof TraceEntrySchema>;
export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export type ToolEntry = z.infer<typeof ToolEntrySchema>;
export type PauseEntry = z.infer<typeof PauseEntrySchema>;
export type HandoffCallEntry = z.infer<typeof HandoffCallEntrySchema>;
export type HandoffOutputEntry = z.infer<typeof HandoffOutputEntrySchema>;
export type RepairNote = z.infer<typeof RepairNoteSchema>;
export type RetryNote = z.infer<typeof RetryNoteSchema>;

/**
 * The version of the session records this build writes, and those it can read. v1: one
 * record per run, rewritten whole on each batch (still read). v2: one chunk per batch.
 */
export const SESSION_SCHEMA_VERSION = 2;
export const READABLE_SESSION_VERSIONS: readonly number[] = [1, 2];

/** What replaces a payload once the trace has reached its size budget. */
export const OMITTED = '[omitted: the trace reached its size limit]';

/** v1, read only: one record per run in 'sessions' holding the whole trace. */
export const SessionRecordSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  schema_version: z.number().int(),
  run_id: z.string(),
  workflow_id: z.string(),
  entries: z.array(TraceEntrySchema),
  /** Entries that did not fit the record's size budget, even without their inputs and outputs. */
  dropped: z.number().int().default(0),
  updated_at: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/**
 * v2: a session is a list of chunks in 'sessions', each created once and never rewritten.
 * Chunk 0 has the session's id, chunk n the id `<id>#<n>` (zero-padded, so ids sort in order).
 */
export const SessionChunkSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  schema_version: z.literal(2),
  session_id: z.string(),
  seq: z.number().int(),
  run_id: z.string(),
  workflow_id: z.string(),
  entries: z.array(TraceEntrySchema),
  /** Entries of this chunk's batch that did not fit the budget, even without their payloads (a
   * batch that fit nothing is a chunk with no entries: only counted). */
  dropped: z.number().int(),
  /** Size (JSON characters) of the session's kept entries up to and including this chunk. */
  chars: z.number().int(),
  at: z.string(),
});
export type SessionChunk = z.infer<typeof SessionChunkSchema>;

/** A session as read back: its chunks' entries in order, across every process that wrote it. */
export interface Session {
  id: string;
  run_id: string;
  workflow_id: string;
  entries: TraceEntry[];
  /** Entries that did not fit the session's size budget, even without their inputs and outputs. */
  dropped: number;
  updated_at: string;
}

/** One record per run and model in 'usage'. */
export const UsageRecordSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  run_id: z.string(),
  workflow_id: z.string(),
  model_id: z.string(),
  /** UTC day (YYYY-MM-DD) of the run's first call to this model. */
  day: z.string(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** The sum when every call's cost is known, else null (`priced` false). */
  cost_usd: z.number().nullable(),
  priced: z.boolean(),
  calls: z.number().int(),
  /** The sum over the calls whose cost is known (absent in records written before it was kept). */
  known_cost_usd: z.number().optional(),
  /** Calls whose cost is unknown: the model has no price, or the endpoint reported no usage. */
  unknown_cost_calls: z.number().int().optional(),
  updated_at: z.string(),
});
export type UsageRecord = z.infer<typeof UsageRecordSchema>;

/** A usage record's cost in two parts: what is known, and how many calls cost an unknown amount. */
export function costParts(u: UsageRecord): { known: number; unknownCalls: number } {
  return {
    known: u.known_cost_usd ?? u.cost_usd ?? 0,
    unknownCalls: u.unknown_cost_calls ?? (u.priced ? 0 : u.calls),
  };
}

/** Shortens text to `max` characters, saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `${text.slice(0, max)}…[+${cut} chars]`;
}

/** JSON text of a value, never throwing (cycles and BigInts become a note). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch (error) {
    return `[not JSON: ${errorMessage(error)}]`;
  }
}
