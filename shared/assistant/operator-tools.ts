/**
 * The Operator's tools: what exists (workflows, decisions and why they were asked, rules,
 * what was done on a day) and the steps on it; each world-changing one waits for the
 * person's yes (confirm-gate.ts).
 */
import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { RuleMatchSchema } from '../records/rule.ts';
import type { ChatTurn } from './chat-turn.ts';
import { gatedCallback } from './confirm-gate.ts';
import { workflowTools } from './workflow-tools.ts';
import { activityOn, findDecision } from './workspace-facts.ts';

export function operatorTools(turn: ChatTurn): Tool[] {
  return [
    ...workflowTools(turn),
    tool({
      name: 'explain_decision',
      description:
        'Why a question was asked: the decision (by id, or words of its subject or sender) with its recorded reasoning and why the gate asked.',
      inputSchema: z.object({ query: z.string() }),
      callback: async ({ query }) =>
        (await findDecision(turn.engine.store, query)) ?? {
          ok: false,
          error: `no decision matches "${query}" (see list_pending)`,
        },
    }),
    tool({
      name: 'list_activity',
      description:
        'What was done on a day, from the audit log: "today", "yesterday" or YYYY-MM-DD (in the profile\'s time zone).',
      inputSchema: z.object({ day: z.string() }),
      callback: async ({ day }) => activityOn(turn.engine.store, day),
    }),
    tool({
      name: 'start_run',
      description: 'Starts a run of a saved workflow now. The person is asked to confirm first.',
      inputSchema: z.object({ workflow_id: z.string() }),
      callback: gatedCallback('start_run'),
    }),
    tool({
      name: 'answer_decision',
      description:
        'Answers a waiting decision with one of its options. The person is asked to confirm first. ' +
        'For an action that carries words (a reply, a ticket), body and title replace the draft; the card shows what is saved.',
      inputSchema: z.object({
        decision_id: z.string(),
        action: z.string(),
        note: z.string().optional(),
        body: z.string().optional(),
        title: z.string().optional(),
      }),
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
