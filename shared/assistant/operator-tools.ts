/** The Operator's world-changing tools; each waits for the person's yes (confirm-gate.ts). */
import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { RuleMatchSchema } from '../records/rule.ts';
import { gatedCallback } from './confirm-gate.ts';

export function operatorTools(): Tool[] {
  return [
    tool({
      name: 'start_run',
      description: 'Starts a run of a saved workflow now. The person is asked to confirm first.',
      inputSchema: z.object({ workflow_id: z.string() }),
      callback: gatedCallback('start_run'),
    }),
    tool({
      name: 'answer_decision',
      description:
        'Answers a waiting decision with one of its options. The person is asked to confirm first.',
      inputSchema: z.object({ decision_id: z.string(), action: z.string(), note: z.string().optional() }),
      callback: gatedCallback('answer_decision'),
    }),
    tool({
      name: 'add_rule',
      description:
        'Adds a rule: match {sender} | {domain} | {keywords: [2+]}, and an action. The person is asked to confirm first.',
      inputSchema: z.object({
        match: RuleMatchSchema,
        action: z.string(),
        workflow_id: z.string().optional(),
        note: z.string().optional(),
      }),
      callback: gatedCallback('add_rule'),
    }),
    tool({
      name: 'revoke_rule',
      description: 'Revokes a rule by id. The person is asked to confirm first.',
      inputSchema: z.object({ rule_id: z.string() }),
      callback: gatedCallback('revoke_rule'),
    }),
  ];
}
