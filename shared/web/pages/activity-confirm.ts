/**
 * The step before accepting a group's suggestions: what will happen, in words ("archive 23,
 * file a ticket for 4"), what is left for the person (irreversible suggestions), and the
 * button that does it. A page of its own without JavaScript; activity.js shows the same
 * section inside the group.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import { describeSuggestions } from '../activity-list.ts';
import { shell, type Visitor, type WorkspaceLabel } from './layout.ts';
import { csrfField, label, plural, type Html } from './ui.ts';
import { onceBox } from './once-box.ts';

/** What accepting a group's suggestions would do. */
export interface AcceptPlan {
  workspace: WorkspaceLabel | null;
  run: string;
  /** The sender domain (or address) the group is of; null: the whole run. */
  sender: string | null;
  /** The questions whose suggestions will be taken, at most MAX_ANSWERS. */
  accept: Decision[];
  /** Matching questions beyond the most one accept takes (accepted by pressing again). */
  more: number;
  /** Irreversible suggestions: each is answered on its own. */
  leftForYou: Decision[];
  /** The Activity page (filters, page) to return to. */
  back: string;
}

const whereOf = (plan: AcceptPlan) =>
  plan.workspace ? `?workspace=${encodeURIComponent(plan.workspace.id)}` : '';

/** The confirm section (what will happen, and the button that does it). */
export function acceptConfirmSection(visitor: Visitor, plan: AcceptPlan): Html {
  const group = plan.sender ? `from ${plan.sender} in this run` : 'of this run';
  return html`<section class="confirm" data-confirm aria-labelledby="confirm-title">
    <h2 id="confirm-title">Accept ${plural(plan.accept.length, 'suggestion')} ${group}?</h2>
    ${
      plan.accept.length > 0
        ? html`<p data-plan>This will ${describeSuggestions(plan.accept)}.</p>`
        : html`<p data-plan>There is no suggestion here that may be accepted together.</p>`
    }
    ${plan.more > 0 ? html`<p class="muted">${plan.more} more wait in this group: accept again after these.</p>` : ''}
    ${
      plan.leftForYou.length > 0
        ? html`<p data-left>
            Left for you: ${plural(plan.leftForYou.length, 'question')} whose suggestion cannot be undone
            (${[...new Set(plan.leftForYou.map((d) => label(d.suggested_action)))].join(', ')}). Answer each
            on its own.
          </p>`
        : ''
    }
    <div class="options">
      ${
        plan.accept.length > 0
          ? html`<form
              class="inline-form"
              method="post"
              action="/activity/accept${whereOf(plan)}"
              data-inplace
            >
              ${csrfField(visitor)}<input type="hidden" name="run" value="${plan.run}" />
              ${plan.sender ? html`<input type="hidden" name="sender" value="${plan.sender}" />` : ''}
              <input type="hidden" name="ids" value="${plan.accept.map((d) => d.id).join(',')}" />
              <input type="hidden" name="back" value="${plan.back}" />
              <input type="hidden" name="confirm" value="1" />
              <button class="button button-primary" type="submit" data-confirm-accept>
                Yes: ${describeSuggestions(plan.accept)}
              </button>
              ${onceBox('confirm-once')}
            </form>`
          : ''
      }
      <a class="button" href="${plan.back}" data-cancel>Cancel</a>
    </div>
  </section>`;
}

/** The confirm step as a page (no JavaScript). */
export function acceptConfirmPage(visitor: Visitor, plan: AcceptPlan, pending: number): Html {
  return shell({
    title: 'Accept the suggestions?',
    nav: 'activity',
    visitor,
    pending,
    body: html`<h1>Activity</h1>
      ${acceptConfirmSection(visitor, plan)}`,
  });
}
