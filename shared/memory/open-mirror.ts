import type { AgentCoreMirrorEnv } from './agentcore-mirror.ts';
import { noMirror, type MemoryMirror } from './mirror.ts';

/**
 * The mirror the environment asks for, loaded on first use: the AWS SDK for AgentCore is
 * imported only by a process that actually mirrors a rule.
 */
export function mirrorFor(env: AgentCoreMirrorEnv, workspace: string): MemoryMirror {
  if (!env.USE_AGENTCORE_MEMORY) return noMirror;
  let mirror: Promise<MemoryMirror> | undefined;
  const load = () =>
    (mirror ??= import('./agentcore-mirror.ts').then((m) => m.mirrorFromEnv(env, workspace)));
  return {
    ruleLearned: async (rule) => (await load()).ruleLearned(rule),
    ruleRetired: async (rule, ids) => (await load()).ruleRetired(rule, ids),
  };
}
