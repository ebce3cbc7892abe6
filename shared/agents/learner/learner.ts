import { Agent, tool, type Model } from '@strands-agents/sdk';
import { z } from 'zod';
import { checkProposal, RuleProposalSchema, type LearnerCase, type RuleProposal } from './proposal.ts';

/** Marks the case in the learner's prompt, for a model that reads it literally. */
export const CASE_MARKER = 'Decision:';

export type LearnerVerdict = { kind: 'rule'; proposal: RuleProposal } | { kind: 'none'; reason: string };

const SYSTEM_PROMPT = [
  'You turn ONE decision a person made into AT MOST ONE narrow rule, so the agent does not ask again.',
  'A rule has a pattern the person would recognise as their own decision, a match, an action and a confidence.',
  'Matches: an exact sender address, a whole domain (only when the person said so, e.g. "anything from this company"),',
  'or at least two distinctive keywords that appear in the message. The note is the strongest signal.',
  'With no note, write the narrowest rule that explains the answer: the exact sender.',
  'A rule that fires too eagerly takes actions nobody sanctioned, which is worse than one more question.',
  'If nothing narrow fits (a one-off, "just this once", an irreversible action), call no_rule.',
  'Call write_rule or no_rule exactly once.',
].join('\n');

/** The learner's prompt for one case. */
export function learnerPrompt(learnerCase: LearnerCase): string {
  return `${CASE_MARKER} ${JSON.stringify(learnerCase)}`;
}

/**
 * Runs the Learner agent (on the cheaper model) over one decision. Its tools check every
 * proposal against the decision; a rejected proposal is explained to the model, and the
 * verdict is `none` unless a proposal passes.
 */
export async function runLearner(
  model: Model,
  learnerCase: LearnerCase,
  /** Called with the agent before it runs: the run's session recorder watches it. */
  observe: (agent: Agent) => void = () => {},
): Promise<LearnerVerdict> {
  let verdict: LearnerVerdict = { kind: 'none', reason: 'the learner wrote nothing' };
  const writeRule = tool({
    name: 'write_rule',
    description: 'Save one narrow rule that explains this decision.',
    inputSchema: RuleProposalSchema,
    callback: (proposal) => {
      const problem = checkProposal(proposal, learnerCase);
      if (problem) return { saved: false, problem };
      verdict = { kind: 'rule', proposal };
      return { saved: true };
    },
  });
  const noRule = tool({
    name: 'no_rule',
    description: 'Write no rule: nothing narrow explains this decision.',
    inputSchema: z.object({ reason: z.string() }),
    callback: ({ reason }) => {
      if (verdict.kind !== 'rule') verdict = { kind: 'none', reason };
      return { ok: true };
    },
  });
  const agent = new Agent({
    id: 'learner',
    name: 'learner',
    model,
    systemPrompt: SYSTEM_PROMPT,
    tools: [writeRule, noRule],
    printer: false,
  });
  observe(agent);
  await agent.invoke(learnerPrompt(learnerCase));
  return verdict;
}
