/**
 * What the speech and chat routes return, as zod schemas; api-responses.ts gathers them by
 * name for the OpenAPI document.
 */
import { z } from 'zod';
import { WorkflowCardSchema } from '../chats/chat-records.ts';
import { LearnedRule } from './api-responses-core.ts';

export const SpeechStatus = z
  .object({
    provider: z.enum(['local', 'aws', 'groq', 'browser']).meta({ description: 'HANDOFF_SPEECH_PROVIDER.' }),
    providers: z.array(z.object({ name: z.string(), usable: z.boolean(), detail: z.string() })),
  })
  .meta({ id: 'SpeechStatus' });

export const Transcript = z
  .object({
    text: z.string().meta({ description: 'Empty when nothing was recognised with confidence.' }),
    provider: z.string(),
    confidence: z.number().min(0).max(1).optional(),
  })
  .meta({ id: 'Transcript' });

export const VoiceAnswer = z
  .object({
    transcript: z.string(),
    intent: z.string().meta({ description: 'An option of the decision, or why, next, stop, yes, no, none.' }),
    action: z.string().optional().meta({ description: 'Present when the decision was answered.' }),
    confirm: z
      .literal(true)
      .optional()
      .meta({ description: 'Irreversible: send a "yes" recording with ?confirm=<intent>.' }),
    note: z.string().nullable().optional(),
    run_status: z.string().optional(),
    message: z.string().meta({ description: 'One line for the person.' }),
    edited: z.literal(true).optional().meta({
      description: 'The answer saved the person’s own words (an edited draft) instead of the draft.',
    }),
    learned: z.string().optional().meta({
      description:
        'Set when answered: what it taught, in words ("From now on: … → …", or "Nothing learned (just this once)").',
    }),
    learned_rule: LearnedRule.nullable().optional(),
  })
  .meta({ id: 'VoiceAnswer' });

/** Audio in WAV (16 kHz mono 16-bit). */
export const Wav = z.string().meta({ contentMediaType: 'audio/wav' });

export const WorkflowCard = WorkflowCardSchema.meta({
  id: 'WorkflowCard',
  description:
    'A workflow in plain words, on a save or delete waiting for the yes: answer yes, no, or say what to change.',
});

export const ChatConfirm = z
  .object({ id: z.string(), tool: z.string(), summary: z.string(), card: WorkflowCard.optional() })
  .meta({
    id: 'ChatConfirm',
    description:
      'The world-changing step waiting for the person’s yes ("yes", "save it", "run it", or the card’s button).',
  });

export const ChatReply = z
  .object({
    chat_id: z.string(),
    text: z.string(),
    workflow_id: z.string().optional().meta({ description: 'The workflow this turn saved.' }),
    run_id: z.string().optional().meta({ description: 'The run this turn started or resumed.' }),
    confirm: ChatConfirm.optional(),
  })
  .meta({ id: 'ChatReply' });

export const ChatAccepted = z
  .object({ chat_id: z.string(), turn_id: z.string() })
  .meta({ id: 'ChatAccepted', description: 'On AWS the turn runs apart: its reply streams on chat:<id>.' });

export const ChatSummary = z
  .object({ chat_id: z.string(), title: z.string(), turns: z.number().int(), updated_at: z.string() })
  .meta({ id: 'ChatSummary' });

const CardJson = z.looseObject({ kind: z.string() });

export const Chat = z
  .object({
    chat_id: z.string(),
    title: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    turns: z.array(
      z.object({
        role: z.enum(['user', 'assistant']),
        text: z.string(),
        at: z.string(),
        cards: z.array(CardJson),
      }),
    ),
    confirm: ChatConfirm.nullable(),
    questions: z
      .array(CardJson)
      .meta({ description: 'Questions a run started here asked after its turn: answer them here.' }),
  })
  .meta({ id: 'Chat' });

export const TALK_RESPONSES = {
  SpeechStatus,
  Transcript,
  VoiceAnswer,
  Wav,
  ChatSummaries: z.array(ChatSummary),
  ChatCreated: z.object({ chat_id: z.string() }).meta({ id: 'ChatCreated' }),
  Chat,
  ChatReply,
  ChatAccepted,
};
