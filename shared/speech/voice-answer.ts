/**
 * Answering a decision by voice: the recording is transcribed, read as an intent for
 * that decision, and a reversible option is answered through `decide` (the one way a
 * decision is answered). An irreversible one waits for a second utterance, "yes",
 * sent with `confirm` naming it. Anything else changes nothing and says so.
 */
import { AlreadyDecidedError, InvalidInputError } from '../errors/index.ts';
import { allowedActions, recordAnswer } from '../runs/decide.ts';
import { getDecision } from '../runs/decision-repository.ts';
import { editsFromFields } from '../runs/edited-words.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { learnedFrom, type LearnedRuleJson } from '../runs/learned.ts';
import { actionDone } from '../runs/views.ts';
import type { Decision } from '../records/runs.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { parseIntent, phrasesFor, vocabulary, type VoiceIntent } from './intents.ts';
import type { Speech } from './speech.ts';

/** What `POST /api/decisions/:id/voice` returns. */
export interface VoiceAnswer {
  transcript: string;
  /** The option chosen, or `why`, `next`, `stop`, `yes`, `no`, `none`. */
  intent: string;
  /** Set when the decision was answered: the action taken. */
  action?: string;
  /** True when the intent is irreversible: say "yes" (sent with `confirm=<intent>`) to go ahead. */
  confirm?: true;
  note?: string | null;
  /** The run's status after an answer. */
  run_status?: string;
  /** One line for the person: what happened, or why nothing did. */
  message: string;
  /** Set when the answer saved the person's own words (an edited draft) rather than the draft. */
  edited?: true;
  /** Set when the decision was answered: what the answer taught, in words (also in `message`). */
  learned?: string;
  /** The rule the answer taught (Undo revokes it alone), or null when it taught none. */
  learned_rule?: LearnedRuleJson | null;
}

/** The options of a decision that cannot be undone (declared irreversible by its workflow; `delete` when unknown). */
async function irreversibleOptions(deps: EngineDeps, decision: Decision): Promise<Set<string>> {
  const workflow = await getWorkflow(deps.store, decision.workflow_id).catch(() => null);
  if (!workflow) return new Set(['delete']);
  return new Set(workflow.actions.filter((a) => a.irreversible).map((a) => a.name));
}

function spoken(action: string, decision: Decision): string {
  return (
    action === 'approve_suggested' ? actionDone(decision.suggested_action) : actionDone(action)
  ).toLowerCase();
}

/**
 * Answers decision `decisionId` from one recording (a WAV upload), or from what the page's
 * own speech engine heard (`{transcript}`). `confirm` names the
 * irreversible option a previous utterance asked for; only a "yes" carries it out.
 * `words` are the page's text boxes (`body:<action>`, `title:<action>`): the drafted words
 * as the person left them; the chosen action's are what is saved.
 */
export async function answerByVoice(
  deps: EngineDeps,
  speech: Speech,
  decisionId: string,
  said: Buffer | { transcript: string },
  confirm: string | null,
  words: Record<string, string> = {},
): Promise<VoiceAnswer> {
  const decision = await getDecision(deps.store, decisionId);
  if (decision.status !== 'pending')
    throw new AlreadyDecidedError(
      `decision ${decisionId} was already ${decision.status}; nothing was changed`,
      decision,
    );
  const options = allowedActions(decision);
  const irreversible = await irreversibleOptions(deps, decision);
  if (confirm !== null && !(options.includes(confirm) && irreversible.has(confirm)))
    throw new InvalidInputError(
      `confirm=${confirm} is not an irreversible option of decision ${decisionId}; nothing was changed`,
    );
  // A recording is heard here; a transcript comes from the page's own engine (the browser provider).
  const heard = Buffer.isBuffer(said)
    ? await speech.transcribe(said, { vocabulary: vocabulary(options) })
    : { text: said.transcript.trim() };
  const intent: VoiceIntent = parseIntent(heard.text, {
    options,
    irreversible,
    suggested: decision.suggested_action,
  });
  const transcript = heard.text;
  const answer = async (action: string, note: string | null): Promise<VoiceAnswer> => {
    const edits = editsFromFields(words, decision, action);
    const result = await recordAnswer(deps, decisionId, action, note, undefined, [], { edits });
    const edited = edits.body !== undefined || edits.title !== undefined;
    const learned = learnedFrom(result.answered, result.learned);
    return {
      transcript,
      intent: action,
      action,
      note,
      run_status: result.run_status,
      message: `Done: ${spoken(action, decision)}${edited ? ', with your words' : ''}. ${spokenLearned(learned.words)}.`,
      ...(edited ? { edited: true as const } : {}),
      learned: learned.words,
      learned_rule: learned.rule,
    };
  };

  if (confirm !== null && intent.kind === 'yes') return answer(confirm, null);
  if (confirm !== null && intent.kind === 'no')
    return { transcript, intent: 'no', message: 'Cancelled; nothing was done.' };
  switch (intent.kind) {
    case 'answer':
      if (intent.irreversible)
        return {
          transcript,
          intent: intent.action,
          confirm: true,
          note: intent.note,
          message: `That cannot be undone. Say "yes" to ${phrasesFor(intent.action)[0]}, or "no".`,
        };
      return answer(intent.action, intent.note);
    case 'why':
      return { transcript, intent: 'why', message: decision.reasoning };
    case 'next':
    case 'stop':
      return {
        transcript,
        intent: intent.kind,
        message: intent.kind === 'next' ? 'Next.' : 'Stopped listening.',
      };
    case 'yes':
    case 'no':
      return { transcript, intent: intent.kind, message: 'There is nothing to confirm; nothing was done.' };
    default:
      return {
        transcript,
        intent: 'none',
        message:
          transcript === ''
            ? 'I did not catch an answer; nothing was done. Say, for example, "archive it" or "leave it".'
            : `"${transcript}" is not one of the answers; nothing was done.`,
      };
  }
}

/** What was learned, said aloud: the arrow of "mail from a@b.example → archive it" read as a pause. */
function spokenLearned(words: string): string {
  return words.replace(' → ', ', ');
}
