/**
 * The words an action carries, shown where the person decides and editable there: a text
 * box per drafted action, sent with the answer as `body:<action>` (and `title:<action>`).
 * What is in the box when they choose that action is what is saved.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import type { Words } from '../../actions/words.ts';
import { label, type Html } from './ui.ts';

const WRITER: Record<Words['by'], string> = {
  model: 'written by the model for this message',
  offline: 'offline draft: written without a language model, from the message itself',
  template: 'made from the message',
  person: 'your words',
};

/** One drafted action's text boxes; `prefix` keeps the ids unique on a page of many questions. */
function draftBox(decision: Decision, words: Words, prefix: string): Html {
  const id = `${prefix}${decision.id}-${words.action}`;
  const suggested = decision.suggested_action === words.action;
  return html`<details class="draft" ${suggested ? 'open' : ''}>
    <summary>
      ${label(words.action)}: the words it will use <span class="muted small">(${WRITER[words.by]})</span>
    </summary>
    ${
      words.title !== null
        ? html`<label for="${id}-title">Title</label>
            <input
              id="${id}-title"
              name="title:${words.action}"
              type="text"
              maxlength="200"
              value="${words.title}"
            />`
        : ''
    }
    <label for="${id}-body"
      >${words.action === 'draft_reply' ? 'Reply (saved as a draft exactly as written here)' : 'Body'}</label
    >
    <textarea
      id="${id}-body"
      name="body:${words.action}"
      rows="${words.action === 'draft_reply' ? 10 : 6}"
      maxlength="20000"
    >
${words.body}</textarea>
  </details>`;
}

/** The editable drafts of a waiting decision (nothing when none of its options carries words). */
export function draftFields(decision: Decision, prefix = ''): Html | string {
  const drafts = decision.drafts ?? [];
  if (drafts.length === 0) return '';
  return html`<div class="drafts">${drafts.map((w) => draftBox(decision, w, prefix))}</div>`;
}

/** The words a person gave with an answer, shown with it. */
export function answeredWords(decision: Decision): Html | string {
  const body = decision.answer?.body;
  if (!body) return '';
  return html`<p class="muted small">
      With your own words${decision.answer?.title ? html` (“${decision.answer.title}”)` : ''}:
    </p>
    <pre class="verbatim">${body}</pre>`;
}
