import { z } from 'zod';
import { WordsSchema } from './words.ts';

export const RunStatusSchema = z.enum(['running', 'waiting', 'completed', 'skipped', 'failed']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunCountsSchema = z.object({
  /** Items acted on, by any decider. */
  acted: z.number().int(),
  /** Decided by a rule you set: an action (also in acted or failed) or skip. */
  by_your_rules: z.number().int(),
  /** Decided by a learned rule: an action (also in acted or failed) or skip. */
  by_learned_rules: z.number().int(),
  /** Acted on by the model alone, above the threshold. */
  confident: z.number().int(),
  /** Acted on a person's answer (records from before this count read as 0). */
  by_you: z.number().int().default(0),
  /** Set aside for the person. */
  deferred: z.number().int(),
  /** Cancelled: skipped by a person or the model, or expired (a rule's skip is in by_*_rules). */
  declined: z.number().int(),
  failed: z.number().int(),
});
export type RunCounts = z.infer<typeof RunCountsSchema>;

export const EMPTY_COUNTS: RunCounts = {
  acted: 0,
  by_your_rules: 0,
  by_learned_rules: 0,
  confident: 0,
  by_you: 0,
  deferred: 0,
  declined: 0,
  failed: 0,
};

export const TriggerSchema = z.object({
  kind: z.enum(['manual', 'schedule', 'webhook']),
  /** The webhook body, or the cron that fired. */
  detail: z.string().nullable(),
});
export type RunTrigger = z.infer<typeof TriggerSchema>;

/** Persisted graph state of a paused run. */
export const RunSnapshotSchema = z.object({
  schemaVersion: z.number().int(),
  graph: z.record(z.string(), z.unknown()),
});

/** A skill or agent version a run read (its `skills`/`agents`). */
export const LibraryPinSchema = z.object({ name: z.string(), version: z.number().int() });
export type LibraryPin = z.infer<typeof LibraryPinSchema>;

export const RunSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  workflow_id: z.string(),
  status: RunStatusSchema,
  trigger: TriggerSchema,
  counts: RunCountsSchema,
  interrupt_id: z.string().nullable(),
  /** The step another process must run next, and the interrupt to resume it with. */
  dispatch: z
    .object({
      node: z.enum(['executor', 'completer', 'resume']),
      interrupt_id: z.string(),
      /** The step that dispatched it: its retry re-sends a dispatch that was lost. */
      from: z.enum(['executor', 'completer', 'resume']).nullable().default(null),
      /** When the dispatch was last sent; the sweeper re-sends one nobody took. */
      sent_at: z.string().nullable().default(null),
      /** How many times it was sent; past MAX_SENDS the run is marked failed. */
      sends: z.number().int().default(1),
      /** When the step's process took it; a second delivery meanwhile is ignored. */
      taken_at: z.string().nullable().default(null),
    })
    .nullable()
    .default(null),
  snapshot: RunSnapshotSchema.nullable(),
  /**
   * Where the run's trace goes on (its next chunk and the characters so far), as the pass
   * that last paused or handed it over left it: the next pass appends without looking.
   * Absent on runs written before it; a stale one only costs a catch-up read.
   */
  trace_tail: z
    .object({ next: z.number().int().nonnegative(), chars: z.number().int().nonnegative() })
    .optional(),
  error: z.string().nullable(),
  /** Why a skipped run found nothing to do ("no new mail since 08:00 UTC"); absent on older runs. */
  skip_reason: z.string().nullable().optional(),
  /** The process running it; lets a later process notice a run that died with it. */
  owner: z.object({ pid: z.number().int(), host: z.string() }).nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  /** The skill versions the run included, pinned at its start (absent when it included none). */
  skills: z.array(LibraryPinSchema).optional(),
  /** The agent definitions (and versions) it used as specialists. */
  agents: z.array(LibraryPinSchema).optional(),
  /**
   * True when every audit entry and decision of the run carries its key in its id (runs
   * started by this build, or rewritten by `handoff store migrate`): its audit and questions
   * are read by id prefix. Absent on a run from before; it is read the older way.
   */
  keyed: z.literal(true).optional(),
  /** Questions of a migrated run whose ids were made before they carried the run's key: read by id. */
  legacy_decision_ids: z.array(z.string()).optional(),
});
export type Run = z.infer<typeof RunSchema>;
export type RunDispatch = NonNullable<Run['dispatch']>;

/** A fresh dispatch of a run to the process of `node`, sent now. */
export function dispatchTo(
  node: RunDispatch['node'],
  interruptId: string,
  from: RunDispatch['from'],
  now = new Date(),
): RunDispatch {
  return { node, interrupt_id: interruptId, from, sent_at: now.toISOString(), sends: 1, taken_at: null };
}

export const InterruptSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  run_id: z.string(),
  workflow_id: z.string(),
  /** The id Strands gave the interrupt; the resume response is addressed to it. */
  strands_interrupt_id: z.string(),
  decision_ids: z.array(z.string()),
  status: z.enum(['open', 'resumed']),
  created_at: z.string(),
  /**
   * Raised during the profile's quiet hours: when the person is to be told (the end of
   * the quiet hours). Cleared once the notice went out; absent or null: told at once.
   */
  notice_due_at: z.string().nullable().optional(),
});
export type InterruptRecord = z.infer<typeof InterruptSchema>;

export const AnswerSchema = z.object({
  action: z.string(),
  note: z.string().nullable(),
  /** Answered "just this once": it teaches nothing and cancels nothing (absent: false). */
  once: z.boolean().optional(),
  /** "workflow": what it teaches is kept to this workflow (absent: to every workflow reading its source). */
  scope: z.enum(['source', 'workflow']).optional(),
  /** `human` answered; `expired` means nobody did in time. */
  by: z.enum(['human', 'expired', 'unreachable']),
  /** Why nobody answered, when by is not human. */
  reason: z.string().nullable().optional(),
  /** The person's own words for the chosen action, when they changed the draft (absent: as drafted). */
  body: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  at: z.string(),
});
export type Answer = z.infer<typeof AnswerSchema>;

export const DecisionSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  run_id: z.string(),
  interrupt_id: z.string(),
  workflow_id: z.string(),
  item_id: z.string(),
  /** Where the source finds the item (absent on questions asked before answers took effect at once). */
  item_ref: z.string().optional(),
  sender: z.string(),
  subject: z.string(),
  suggested_action: z.string(),
  confidence: z.number(),
  reasoning: z.string(),
  snippet: z.string().default(''),
  reason: z.string(),
  options: z.array(z.string()),
  /** The specialist that asked, when the executor handed the item to one. */
  agent: z.string().optional(),
  /** What the decision page shows of its workflow, as asked (older decisions lack it: the page reads the workflow). */
  workflow_view: z
    .object({
      name: z.string(),
      confidence_threshold: z.number().nullable(),
      source: z.string(),
      /** The source the workflow reads, as rules are kept under it (memory/source-key.ts; absent on older questions). */
      source_key: z.string().optional(),
    })
    .optional(),
  /** The words written for the options that carry words (a reply's body, a ticket), shown and editable. */
  drafts: z.array(WordsSchema).optional(),
  status: z.enum(['pending', 'answered', 'expired']),
  answer: AnswerSchema.nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type Decision = z.infer<typeof DecisionSchema>;
