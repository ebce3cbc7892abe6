import type { Rule } from '../records/rule.ts';

/** Why an item was set aside for the person. */
export type DeferReason = 'irreversible' | 'low_confidence' | 'force_interrupt' | 'unknown_action';

/** The gate's verdict on one submit_action call. Expected outcomes are values. */
export type GateVerdict =
  | { kind: 'rewrite'; action: string; confidence: number; rule: Rule }
  | { kind: 'act'; action: string; confidence: number }
  | { kind: 'defer'; action: string; confidence: number; reason: DeferReason };

export interface GateInput {
  action: unknown;
  confidence: unknown;
  forceInterrupt: unknown;
}

export interface GatePolicy {
  threshold: number;
  /** Declared actions and whether each is irreversible. `skip` is always allowed. */
  actions: ReadonlyMap<string, { irreversible: boolean }>;
}

/** A score the gate can trust; anything malformed, missing, NaN or out of range counts as 0. */
export function normaliseConfidence(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
}

/** Anything but an absent or literal false flag is read as a request to ask: fail toward asking. */
function wantsInterrupt(flag: unknown): boolean {
  return flag !== undefined && flag !== null && flag !== false;
}

function isIrreversible(policy: GatePolicy, action: string): boolean {
  return policy.actions.get(action)?.irreversible ?? false;
}

/**
 * Judges one call (the gate's verdict, not the person's decision), in the order the product promises: a covering rule first, then
 * irreversible always asks, then confidence against the threshold. Every doubt
 * resolves toward asking.
 */
export function judge(input: GateInput, policy: GatePolicy, rule: Rule | undefined): GateVerdict {
  const confidence = normaliseConfidence(input.confidence);
  const proposed = typeof input.action === 'string' ? input.action : '';
  if (rule && (rule.action === 'skip' || policy.actions.has(rule.action))) {
    if (isIrreversible(policy, rule.action))
      return { kind: 'defer', action: rule.action, confidence, reason: 'irreversible' };
    return { kind: 'rewrite', action: rule.action, confidence: 1, rule };
  }
  if (proposed !== 'skip' && !policy.actions.has(proposed))
    return { kind: 'defer', action: proposed, confidence, reason: 'unknown_action' };
  if (isIrreversible(policy, proposed))
    return { kind: 'defer', action: proposed, confidence, reason: 'irreversible' };
  if (wantsInterrupt(input.forceInterrupt))
    return { kind: 'defer', action: proposed, confidence, reason: 'force_interrupt' };
  if (confidence < policy.threshold)
    return { kind: 'defer', action: proposed, confidence, reason: 'low_confidence' };
  return { kind: 'act', action: proposed, confidence };
}
