/**
 * The words a form or page sent with an answer, read as the person's edits: the text boxes
 * of the decision page, Activity, Talk and the chat card are named `body:<action>` and
 * `title:<action>`. Only the chosen action's boxes count, and a box left as drafted is no edit.
 */
import { normalizeText, wordsFor, type WordEdits } from '../actions/words.ts';
import type { Decision } from '../records/runs.ts';

/** The field names that carry words: `body:<action>` and `title:<action>`. */
export const WORD_FIELD = /^(body|title):[a-z][a-z0-9_]*$/;

/** The person's edits for `action` (approve_suggested is the suggested action), or `{}` when unchanged. */
export function editsFromFields(
  fields: Record<string, string | undefined>,
  decision: Decision,
  action: string,
): WordEdits {
  const chosen = action === 'approve_suggested' ? decision.suggested_action : action;
  const drafted = wordsFor(decision.drafts, chosen);
  const body = fields[`body:${chosen}`];
  const title = fields[`title:${chosen}`];
  return {
    ...(body !== undefined && normalizeText(body) !== drafted?.body ? { body } : {}),
    ...(title !== undefined && title.trim() !== drafted?.title ? { title } : {}),
  };
}
