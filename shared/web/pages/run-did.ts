/**
 * The run page's "What it did": each item the run settled (subject, sender, what was done,
 * who decided), a page of 50 at a time, with links to the pages before and after.
 */
import { html } from 'hono/html';
import type { DidPage, DidRow } from '../../runs/what-it-did.ts';
import { actionDone } from '../../runs/views.ts';
import { plural, scrollable, type Html } from './ui.ts';

const OUTCOME_WORDS: Partial<Record<DidRow['outcome'], string>> = {
  declined: 'Left alone',
  expired: 'Left alone — nobody answered in time',
  failed: 'Failed',
  unparseable: 'Could not read it',
  duplicate: 'Already handled',
};

function done(row: DidRow): string {
  if (row.outcome === 'acted' && row.action) return actionDone(row.action);
  const words = OUTCOME_WORDS[row.outcome] ?? row.outcome;
  return row.outcome === 'failed' && row.action ? `${words}: ${actionDone(row.action)}` : words;
}

function decider(row: DidRow): Html {
  if (row.decided_by === 'rule')
    return html`<span class="decider decider-rule">rule</span> <span class="small">${row.rule ?? ''}</span>`;
  if (row.decided_by === 'you') return html`<span class="decider decider-you">you</span>`;
  if (row.decided_by === 'confident') return html`<span class="decider decider-model">confident</span>`;
  return html`<span class="muted">nobody</span>`;
}

/** Links to page `n` of a list on the run page, keeping the other lists where they are. */
export function pageLinks(
  base: string,
  param: string,
  at: { page: number; pages: number },
  words: { before: string; after: string },
): Html | string {
  if (at.pages <= 1) return '';
  const link = (n: number, text: string) => {
    const url = new URL(base, 'http://page.invalid');
    url.searchParams.set(param, String(n));
    return html`<a href="${url.pathname}${url.search}#${param}">${text}</a>`;
  };
  return html`<p class="pager small" data-pager="${param}">
    ${at.page > 0 ? link(at.page - 1, words.before) : ''} Page ${at.page + 1} of ${at.pages}
    ${at.page + 1 < at.pages ? link(at.page + 1, words.after) : ''}
  </p>`;
}

/** The "What it did" section; nothing while the run has settled no item. */
export function whatItDidSection(did: DidPage, base: string): Html | string {
  if (did.total === 0) return '';
  return html`<section aria-labelledby="did-title" id="did" data-did>
    <h2 id="did-title">What it did: ${plural(did.total, 'item')}</h2>
    ${scrollable(
      'What it did',
      html`<table class="table did">
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">Sender</th>
            <th scope="col">Action</th>
            <th scope="col">Decided by</th>
          </tr>
        </thead>
        <tbody>
          ${did.rows.map(
            (row) =>
              html`<tr data-did-row data-decided-by="${row.decided_by}">
                <td>${row.subject || '(no subject)'}</td>
                <td class="small">${row.sender ?? html`<span class="muted">—</span>`}</td>
                <td>${done(row)}</td>
                <td>${decider(row)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
    ${pageLinks(base, 'did', did, { before: 'Earlier items', after: 'Later items' })}
  </section>`;
}
