/**
 * What the workflow, run, question, credential, artifact and schedule routes return, as zod
 * schemas (read only by the OpenAPI document: api-responses.ts gathers them by name).
 */
import { z } from 'zod';
import { RunStatusSchema } from '../records/runs.ts';
import { COUNT_KEYS } from '../runs/counts.ts';

const nullable = (schema: z.ZodType) => schema.nullable();
const count = () => z.number().int().min(0);

export const ErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'One line saying what went wrong and what to do.' }),
  })
  .meta({ id: 'Error' });

export const Trigger = z
  .object({
    manual: z.literal(true).optional(),
    schedule: z
      .string()
      .optional()
      .meta({ examples: ['cron(0 8 * * ? *)', 'rate(1 hour)'] }),
    webhook: z.literal(true).optional(),
  })
  .meta({ id: 'Trigger', description: 'Exactly one kind.' });

export const WorkflowSummary = z
  .object({ id: z.string(), name: z.string(), trigger: Trigger })
  .meta({ id: 'WorkflowSummary' });

export const RunStarted = z.object({ run_id: z.string() }).meta({ id: 'RunStarted' });

export const RunSummary = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    acted: count(),
    by_memory: count().meta({ description: 'Decided by your rules or learned rules (an action or skip).' }),
    deferred: count().meta({ description: 'Set aside for a person.' }),
    interrupt_id: nullable(z.string()).meta({ description: 'The open set of questions, while waiting.' }),
    error: z.string().optional().meta({ description: 'Only for a failed run: why it failed.' }),
    skip_reason: z.string().optional().meta({
      description: 'Only for a skipped run: why there was nothing to do ("no new mail since 08:00 UTC").',
    }),
    counts: z.object(Object.fromEntries(COUNT_KEYS.map((k) => [k, count()]))).meta({
      description:
        'What the run did, counted as every surface counts it (docs/counts.md): acted = confident + by_rules + by_you; left_alone includes left_alone_by_rules.',
    }),
  })
  .meta({ id: 'RunSummary' });

/** A waiting question, as `handoff pending --json` (and the base of a listed decision). */
export const PendingFields = z.object({
  decision_id: z.string(),
  run_id: z.string(),
  interrupt_id: z.string(),
  workflow_id: z.string(),
  item_id: z.string(),
  sender: z.string(),
  subject: z.string(),
  suggested_action: z.string(),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  options: z.array(z.string()),
  agent: z
    .string()
    .optional()
    .meta({ description: 'Only in runs with specialists: the specialist that asked.' }),
  drafts: z
    .array(
      z.object({
        action: z.string(),
        title: nullable(z.string()),
        body: z.string(),
        by: z.enum(['model', 'offline', 'template', 'person']).meta({
          description: 'Who wrote them; `offline`: an offline draft, written without a language model.',
        }),
      }),
    )
    .optional()
    .meta({
      description:
        'Only when an option carries words: the words each would save (a reply’s body, a ticket’s title and body), editable with "body"/"title" in the answer.',
    }),
});

export const PendingDecision = PendingFields.meta({ id: 'PendingDecision' });

export const LearnedRule = z.object({ id: z.string(), pattern: z.string(), action: z.string() }).meta({
  id: 'LearnedRule',
  description: 'The rule an answer taught; `POST /api/rules/{id}/undo` revokes it alone.',
});

export const DecideResult = z
  .object({
    decision_id: z.string(),
    action: z.string(),
    run_id: z.string(),
    run_status: z.string().meta({
      description:
        'The run after this answer: still waiting, or running again once every question is answered.',
    }),
    learned: z.string().meta({
      description: 'What it taught, in words: "From now on: … → …", or "Nothing learned (just this once)".',
    }),
    learned_rule: LearnedRule.optional(),
  })
  .meta({ id: 'DecideResult' });

export const Workspaces = z.array(z.object({ id: z.string(), name: z.string(), pending: z.number().int() }));

const CredentialInfo = z.object({
  name: z.string(),
  cipher: z.enum(['aes-256-gcm', 'aws-kms']),
  updated_at: z.string(),
});

export const CredentialSet = CredentialInfo.extend({
  resumed: z.array(z.object({ workflow_id: z.string(), name: z.string() })),
  still_paused: z.array(z.object({ workflow_id: z.string(), name: z.string(), needs: z.array(z.string()) })),
});

const ARTIFACT_FIELDS = {
  id: z.string().meta({ description: '`<run id>.<kind>-<hash>`; the digest and report: `<run id>.<kind>`.' }),
  kind: z.enum(['draft', 'digest', 'ticket', 'report']),
  title: z.string(),
  content_type: z.enum([
    'text/plain; charset=utf-8',
    'text/markdown; charset=utf-8',
    'message/rfc822',
    'application/json',
  ]),
  pointer: nullable(z.string()).meta({
    description: 'Where the thing lives too (a file, a mailbox, a ticket).',
  }),
  size: z.number().int().meta({ description: 'Bytes of the content.' }),
  created_at: z.iso.datetime(),
  workflow_id: z.string(),
  run_id: z.string(),
  item_id: nullable(z.string()),
  decision_id: nullable(z.string()).meta({ description: 'The decision a person answered, when one did.' }),
};

export const ArtifactSummary = z
  .object({ ...ARTIFACT_FIELDS, has_body: z.boolean() })
  .meta({ id: 'ArtifactSummary' });

export const Artifact = z
  .object({
    ...ARTIFACT_FIELDS,
    body: nullable(z.string()).meta({ description: 'The content; null when too large to keep a copy.' }),
  })
  .meta({ id: 'Artifact' });

export const Schedule = z
  .object({
    workflow_id: z.string(),
    name: z.string(),
    schedule: z.string().meta({ examples: ['cron(0 8 ? * MON-FRI *)'] }),
    time_zone: z.string().meta({ description: "The profile's IANA time zone the schedule is read in." }),
    paused: z.boolean(),
    changed_at: nullable(z.iso.datetime()),
    needs: z.array(z.string()).optional().meta({
      description:
        'Present while it is paused until these credentials are set (`handoff credentials set NAME`).',
    }),
    next: z
      .array(
        z.object({
          at: z.iso.datetime(),
          local: z.string().meta({ examples: ['2026-10-26 08:00 CET'] }),
        }),
      )
      .meta({ description: 'The next three firings, soonest first; empty while paused.' }),
  })
  .meta({ id: 'Schedule' });

/** A file in its own content type (no JSON schema of its own). */
export const FileBody = z.string();

export const CORE_RESPONSES = {
  Error: ErrorBody,
  Document: z.record(z.string(), z.unknown()).meta({ description: 'The OpenAPI document.' }),
  WorkflowSummaries: z.array(WorkflowSummary),
  WorkflowSummary,
  RunStarted,
  RunSummary,
  PendingDecisions: z.array(PendingDecision),
  DecideResult,
  Workspaces,
  Credentials: z.array(CredentialInfo),
  CredentialSet,
  CredentialDeleted: z.object({
    deleted: z.string(),
    paused: z
      .array(z.object({ workflow_id: z.string(), name: z.string() }))
      .meta({ description: 'The workflows that need it, now paused until it is set again.' }),
  }),
  ArtifactSummaries: z.array(ArtifactSummary),
  Artifact,
  FileBody,
  Schedules: z.array(Schedule),
  Schedule,
};
