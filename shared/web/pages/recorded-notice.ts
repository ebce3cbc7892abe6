/**
 * The notice after an answer, on every page an answer returns to (the decision page,
 * Activity, the run page): what was done, and what it taught in words — "From now on: mail
 * from a@b.example → archive it" with an Undo that revokes that rule alone — or "Nothing
 * learned (just this once)".
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import type { Learned } from '../../runs/learned.ts';
import { describeAnswer } from '../../runs/views.ts';
import type { Visitor } from './layout.ts';
import { csrfField, type Html } from './ui.ts';

/** An answer just given, what it taught, and whether its rule was undone since. */
export interface RecordedAnswer {
  decision: Decision;
  learned: Learned;
  /** The rule it taught was revoked with Undo. */
  undone: boolean;
}

/** The notice; `back` is the page (path and query) Undo returns to. */
export function recordedNotice(recorded: RecordedAnswer, visitor: Visitor, back: string, more = ''): Html {
  const { decision, learned } = recorded;
  const rule = learned.rule;
  const taught = recorded.undone
    ? html`<span data-learned>Undone: the rule from this answer is revoked; nothing learned.</span>`
    : html`<span data-learned>${learned.words}.</span> ${
          rule
            ? html`<form class="inline-form undo" method="post" action="/rules/${rule.id}/undo">
                ${csrfField(visitor)}<input type="hidden" name="back" value="${back}" />
                <button class="button button-quiet" type="submit">Undo</button>
              </form>`
            : ''
        }`;
  return html`<div class="flash flash-ok" role="status">
    <p>Recorded for “${decision.subject}”: ${describeAnswer(decision)}.${more ? ` ${more}` : ''}</p>
    <p class="learned">${taught}</p>
  </div>`;
}

/** Where Undo may return to: a path of this site (never another origin), else Activity. */
export function safeBack(back: string | undefined): string {
  return back && back.startsWith('/') && !back.startsWith('//') && !back.includes('\\') ? back : '/activity';
}
