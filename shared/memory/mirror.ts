import type { Rule } from '../records/rule.ts';

/**
 * A copy of learned rules kept elsewhere (AgentCore Memory). The local store stays the
 * source of truth for recall; a mirror failure never blocks learning.
 */
export interface MemoryMirror {
  /** A learned rule was written. Returns ids the mirror gave it, kept on the rule for revocation. */
  ruleLearned(rule: Rule): Promise<string[]>;
  /** A learned rule was superseded or revoked. */
  ruleRetired(rule: Rule, mirrorIds: readonly string[]): Promise<void>;
}

/** No mirror configured. */
export const noMirror: MemoryMirror = {
  ruleLearned: async () => [],
  ruleRetired: async () => {},
};
