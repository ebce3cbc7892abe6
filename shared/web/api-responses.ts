/**
 * What the `/api` routes return, as zod schemas (the lists' and answers' here, the others' in
 * api-responses-*.ts): only the OpenAPI document reads them (it loads with its first request),
 * so they stay off a cold start. A route names its responses by their keys in RESPONSES.
 */
import { z } from 'zod';
import { RunStatusSchema } from '../records/runs.ts';
import { CORE_RESPONSES, LearnedRule, PendingFields } from './api-responses-core.ts';
import { PLATFORM_RESPONSES } from './api-responses-platform.ts';
import { TALK_RESPONSES } from './api-responses-talk.ts';
import { DecisionStatusSchema } from './list-queries.ts';

const nullable = (schema: z.ZodType) => schema.nullable();

export const RunRow = z
  .object({
    run_id: z.string(),
    workflow_id: z.string(),
    status: RunStatusSchema,
    started_at: z.string(),
    finished_at: nullable(z.string()),
  })
  .meta({ id: 'RunRow', description: 'As `handoff runs --json`.' });

export const DecisionRow = PendingFields.extend({
  status: DecisionStatusSchema,
  answer: z
    .object({
      action: z.string(),
      note: nullable(z.string()),
      once: z.boolean(),
      by: z.enum(['human', 'expired', 'unreachable']),
      at: z.string(),
    })
    .nullable()
    .meta({ description: 'Null while it waits.' }),
  created_at: z.string(),
}).meta({
  id: 'DecisionRow',
  description: 'As `handoff pending --json`, with its status and answer (null while it waits).',
});

export const RuleRow = z
  .object({
    id: z.string(),
    match: z.record(z.string(), z.unknown()),
    action: z.string(),
    source: z.enum(['you', 'learned']),
    note: nullable(z.string()),
    pattern: nullable(z.string()),
    created_at: z.string(),
    workflow_id: nullable(z.string()),
    decision_id: nullable(z.string()),
    item_id: nullable(z.string()),
    superseded_by: nullable(z.string()),
    fired: z.number().int().meta({ description: 'How many items it decided, in every run so far.' }),
    last_fired_at: nullable(z.string()).meta({ description: 'When it last decided one; null: never.' }),
  })
  .meta({ id: 'RuleRow', description: 'As `handoff rules --json`.' });

export const AuditRow = z
  .object({
    run_id: z.string(),
    item_id: nullable(z.string()),
    outcome: z.string(),
    action: nullable(z.string()),
    decided_by: nullable(z.string()),
    confidence: nullable(z.number()),
    note: nullable(z.string()),
    at: z.string(),
    agent: z.string().optional(),
    handoff: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'AuditRow', description: 'As `handoff audit --json`.' });

/** A page of `item`s: `{items, next_cursor}`. */
export const pageOf = (item: z.ZodType) =>
  z.object({
    items: z.array(item),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Where the next page starts; null on the last page.' }),
  });

export const Stats = z.record(z.string(), z.unknown()).meta({
  id: 'Stats',
  description: 'As `handoff stats --json`: today, this week and overall, and per run.',
});

export const AnswerResult = z
  .object({
    id: z.string(),
    action: z.string(),
    ok: z.boolean().meta({ description: 'The answer was taken.' }),
    error: z.string().optional().meta({ description: 'Why it was not (one line); nothing changed for it.' }),
    learned_rule: LearnedRule.optional(),
    learned: z.string().optional().meta({
      description: 'What it taught, in words: "From now on: … → …", or "Nothing learned (just this once)".',
    }),
    run_id: z.string().optional(),
    run_status: z.string().optional().meta({ description: 'Where its run got to after the answer.' }),
  })
  .meta({ id: 'AnswerResult' });

export const AnswerResults = z.array(AnswerResult);

export const Revoked = z.object({ revoked: LearnedRule });

/** Each response schema by the name a route gives it. */
export const RESPONSES = {
  RunPage: pageOf(RunRow),
  DecisionPage: pageOf(DecisionRow),
  RulePage: pageOf(RuleRow),
  AuditPage: pageOf(AuditRow),
  Stats,
  AnswerResults,
  Revoked,
  ...CORE_RESPONSES,
  ...PLATFORM_RESPONSES,
  ...TALK_RESPONSES,
};

export type ResponseName = keyof typeof RESPONSES;
