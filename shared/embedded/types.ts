import type { Model } from '@strands-agents/sdk';
import { z } from 'zod';
import type { DeferReason } from '../gate/verdict.ts';
import type { Store } from '../store/store.ts';

/** One of the host's tools that changes the world, as the gate sees it. */
export interface GatedTool {
  /** Cannot be undone (delete, send, post publicly): always asked, whatever the confidence or a rule. */
  irreversible?: boolean;
  /**
   * What a rule may match for a call: the party it concerns (an email address, for sender
   * and domain rules), a title and a text (for keyword rules). By default: no address, the
   * tool's name, and the call's string values.
   */
  describe?: (input: Record<string, unknown>) => { sender?: string; subject?: string; text?: string };
}

/** One call the gate set aside, as `ask` is shown it. */
export interface GateQuestion {
  /** The tool use id: stable for this call, and the id an answer names. */
  id: string;
  tool: string;
  /** The call's input as the model wrote it (the host's own data; Handoff never stores it). */
  input: Record<string, unknown>;
  /** The model's confidence, normalised (malformed or missing counts as 0). */
  confidence: number;
  reasoning: string;
  /** Why it was set aside. */
  reason: DeferReason;
  irreversible: boolean;
  options: readonly ['approve', 'skip'];
}

/** The person's answer to one question. Anything but `approve` is a skip. */
export interface GateAnswer {
  id: string;
  action: 'approve' | 'skip' | (string & {});
  /** Why: the strongest signal for what the gate learns. */
  note?: string | null;
}

/**
 * Reaches the person through the host (a chat UI, a Slack thread, a CLI prompt) with every
 * question of one turn. Throwing, outlasting the timeout (the signal aborts then) or
 * returning no answers skips every question.
 */
export type Ask = (
  questions: readonly GateQuestion[],
  signal: AbortSignal,
) => Promise<readonly GateAnswer[] | null | undefined | void>;

/** How the embedded gate is set up. */
export interface EmbeddedGateOptions {
  /** The host's world-changing tools by name; every other tool passes untouched. */
  tools: Record<string, GatedTool>;
  /** Below this confidence a call is asked about (default 0.7). */
  threshold?: number;
  /**
   * Asks the person. Without it the agent pauses (`stopReason: 'interrupt'`) and the host
   * resumes it with `{ interruptResponse: { interruptId, response: { answers } } }`.
   */
  ask?: Ask;
  /** How long `ask` may take before every question is skipped (default 300,000 ms). */
  askTimeoutMs?: number;
  /** Where rules are read (and learned ones written) and each gated call is audited; none by default. */
  store?: Store;
  /** The workflow id rules and audit entries are filed under (default `embedded`). */
  scope?: string;
  /** With `store`: a model for the Learner, which writes one narrow rule from each answer. */
  learner?: Model;
  /** Called with each gated call's outcome, as it is recorded. */
  onRecord?: (record: GateRecord) => void;
}

/** Why a gated call did not run. */
export type SkipCause = 'person' | 'rule' | 'ask_failed' | 'ask_timeout' | 'no_answer';

/** What became of one gated call. */
export interface GateRecord {
  id: string;
  tool: string;
  /** acted: the tool body ran; failed: it ran and reported an error; skipped: it never ran. */
  outcome: 'acted' | 'failed' | 'skipped';
  decided_by: 'model' | 'memory' | 'human' | null;
  confidence: number;
  /** Why it was asked, when it was. */
  asked_because: DeferReason | null;
  skipped_because: SkipCause | null;
  note: string | null;
  rule_id: string | null;
  at: string;
}

/** What the interrupt is answered with: answers by question id, and why there are none. */
export const GateResponseSchema = z.object({
  answers: z.array(z.object({ id: z.string(), action: z.string(), note: z.string().nullish() })).catch([]),
  unreachable: z.enum(['ask_failed', 'ask_timeout', 'no_answer']).nullish(),
});
export type GateResponse = z.infer<typeof GateResponseSchema>;
