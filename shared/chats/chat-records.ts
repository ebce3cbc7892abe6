/**
 * What a chat is in the store: one `chats` record (title, the pending confirmation, the
 * draft workflow, the assistant's Strands session) and its transcript in `chat_turns`,
 * ten turns to a record, so no record outgrows a DynamoDB item however long the chat.
 */
import { z } from 'zod';
import { GraphSnapshotSchema } from '../runs/graph-state.ts';

export const CHAT_SCHEMA_VERSION = 1;
/** Turns per `chat_turns` record. */
export const TURNS_PER_PAGE = 10;
/** The longest message a person may send (characters). */
export const MAX_MESSAGE_CHARS = 8000;
/** A chat id as `POST /api/chats` makes it. */
export const CHAT_ID = /^chat_[a-z0-9_]{1,60}$/;

const PreviewRowSchema = z.object({
  item_id: z.string(),
  sender: z.string(),
  subject: z.string(),
  /** What the gate would do: act (the action), ask the person, or a rule decides. */
  verdict: z.enum(['act', 'ask', 'rule']),
  action: z.string(),
  reason: z.string(),
});
export type PreviewRow = z.infer<typeof PreviewRowSchema>;

/** A workflow in plain words, as the confirmation card and "show me the workflow" show it. */
export const WorkflowCardSchema = z.object({
  workflow_id: z.string(),
  name: z.string(),
  /** Where its items come from, e.g. "the IMAP mailbox INBOX of me@fastmail.com at imap.fastmail.com". */
  source: z.string(),
  /** When it runs, in words with the time zone, e.g. "every weekday at 09:00 (Europe/Helsinki)". */
  schedule: z.string(),
  instructions: z.string(),
  /** One line per action, e.g. "delete (irreversible: always asks you)". */
  actions: z.array(z.string()),
  /** When it acts alone and when it asks, in words. */
  threshold: z.string(),
  /** The credentials it needs and whether each is set. */
  credentials: z.array(z.object({ name: z.string(), set: z.boolean() })),
  /** The preview against real items (null: none was made). */
  preview: z
    .object({ count: z.number(), rows: z.array(PreviewRowSchema), error: z.string().optional() })
    .nullable(),
  /** Saved now it would be: active, or paused until the missing credentials are set. */
  saves_as: z.enum(['active', 'paused']),
});
export type WorkflowCard = z.infer<typeof WorkflowCardSchema>;

/** A world-changing step the assistant asked for, waiting for the person's yes. */
export const ConfirmSchema = z.object({
  id: z.string(),
  tool: z.enum([
    'save_workflow',
    'delete_workflow',
    'start_run',
    'answer_decision',
    'add_rule',
    'revoke_rule',
  ]),
  input: z.record(z.string(), z.unknown()),
  /** One line: what will happen on yes. */
  summary: z.string(),
  /** For a workflow's save: the whole workflow in plain words. */
  card: WorkflowCardSchema.optional(),
  asked_at: z.string(),
});
export type Confirm = z.infer<typeof ConfirmSchema>;
export type ConfirmTool = Confirm['tool'];

/** Things a turn shows beside its text. */
export const CardSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('confirm'),
    confirm_id: z.string(),
    summary: z.string(),
    status: z.enum(['pending', 'done', 'cancelled']),
    /** For a workflow's save: the whole workflow in plain words. */
    card: WorkflowCardSchema.optional(),
  }),
  /** A workflow shown in plain words (the chat's draft, or a saved one). */
  z.object({
    kind: z.literal('workflow'),
    /** draft: not saved yet; active or paused: saved. */
    state: z.enum(['draft', 'active', 'paused']),
    card: WorkflowCardSchema,
    /** What a refinement changed, one line each. */
    changed: z.array(z.string()).default([]),
  }),
  z.object({
    kind: z.literal('preview'),
    workflow_id: z.string(),
    count: z.number(),
    rows: z.array(PreviewRowSchema),
  }),
  z.object({ kind: z.literal('handoff'), from: z.string(), to: z.string() }),
  z.object({ kind: z.literal('workflow_saved'), workflow_id: z.string() }),
  z.object({ kind: z.literal('run'), run_id: z.string(), status: z.string(), text: z.string() }),
  z.object({
    kind: z.literal('decision'),
    decision_id: z.string(),
    run_id: z.string(),
    subject: z.string(),
    sender: z.string(),
    suggested: z.string(),
    options: z.array(z.string()),
  }),
]);
export type Card = z.infer<typeof CardSchema>;

export const TurnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  at: z.string(),
  cards: z.array(CardSchema).default([]),
  /** The id a turn sent through the API was accepted under (202), on the message and its reply. */
  turn_id: z.string().optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

export const ChatSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  schemaVersion: z.literal(CHAT_SCHEMA_VERSION),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  turn_count: z.number().int().min(0),
  confirm: ConfirmSchema.nullable(),
  /** The workflow the Builder drafted and validated, not yet saved. */
  draft: z.record(z.string(), z.unknown()).nullable(),
  /** Strands session snapshots of the chat's agents, by agent id (see ChatSnapshotStorage). */
  session: z.record(z.string(), GraphSnapshotSchema).default({}),
});
export type Chat = z.infer<typeof ChatSchema>;

export const TurnPageSchema = z.object({
  id: z.string(),
  chat_id: z.string(),
  page: z.number().int().min(0),
  turns: z.array(TurnSchema),
});
export type TurnPage = z.infer<typeof TurnPageSchema>;
