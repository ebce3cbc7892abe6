/**
 * A bulk answer's notice (Activity and the run page): what it did, each rule it taught in
 * words with an Undo that revokes that rule alone (a plain form that returns here), the first
 * few named and the rest counted, and how many answers were "just this once".
 */
import { html } from 'hono/html';
import type { BulkNotice, LearnedLine } from '../bulk-notice.ts';
import type { Visitor } from './layout.ts';
import { csrfField, plural, type Html } from './ui.ts';

function learnedLine(line: LearnedLine, notice: BulkNotice, visitor: Visitor): Html {
  if (line.undone) return html`<li class="learned" data-learned>Undone: ${line.words} (revoked).</li>`;
  return html`<li class="learned">
    <span data-learned>${line.words}.</span> ${
      line.live
        ? html`<form class="inline-form undo" method="post" action="/rules/${line.id}/undo">
            ${csrfField(visitor)}<input type="hidden" name="back" value="${notice.back}" />
            <button class="button button-quiet" type="submit">Undo</button>
          </form>`
        : html`<span class="muted">(since replaced by a later answer)</span>`
    }
  </li>`;
}

function learnedList(notice: BulkNotice, visitor: Visitor): Html | string {
  const { learnedCount, rules, more } = notice;
  if (learnedCount === 0) return '';
  if (rules.length === 0)
    return html`<p>Learned ${plural(learnedCount, 'rule')} from them (see <a href="/memory">Memory</a>).</p>`;
  return html`<p>Learned ${plural(learnedCount, 'rule')} from them:</p>
    <ul class="learned-rules">
      ${rules.map((line) => learnedLine(line, notice, visitor))}
    </ul>
    ${more > 0 ? html`<p>and ${more} more (see <a href="/memory">Memory</a>).</p>` : ''}`;
}

/** The notice, as a status flash. */
export function bulkNoticeView(notice: BulkNotice | null | undefined, visitor: Visitor): Html | string {
  if (!notice) return '';
  return html`<div class="flash flash-ok" role="status" data-bulk-notice>
    <p>${notice.words}</p>
    ${learnedList(notice, visitor)}
    ${notice.once > 0 ? html`<p data-once>${notice.once} just this once: nothing learned.</p>` : ''}
  </div>`;
}
