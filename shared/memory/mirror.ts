import type { Rule } from './rule.ts';

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

/**
 * The mirror the environment asks for, loaded on first use: the AWS SDK for AgentCore is
 * imported only by a process that actually mirrors a rule.
 */
export function mirrorFor(
  env: Parameters<typeof import('./agentcore-mirror.ts').mirrorFromEnv>[0],
): MemoryMirror {
  if (!env.USE_AGENTCORE_MEMORY) return noMirror;
  let mirror: Promise<MemoryMirror> | undefined;
  const load = () => (mirror ??= import('./agentcore-mirror.ts').then((m) => m.mirrorFromEnv(env)));
  return {
    ruleLearned: async (rule) => (await load()).ruleLearned(rule),
    ruleRetired: async (rule, ids) => (await load()).ruleRetired(rule, ids),
  };
}
