/** A workflow's source, checked (`/workflows/:id/source`): the count and the first items, nothing acted on. */
import { html } from 'hono/html';
import { publicSourceFields, type SourceCheck } from '../../sources/check.ts';
import type { Workflow } from '../../workflows/schema.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, plural, scrollable, when, type Html } from './ui.ts';

/** The "Check source" form for one workflow (on the overview's row and on its source page). */
export function checkSourceForm(visitor: Visitor, workflow: Workflow): Html {
  return html`<form method="post" action="/workflows/${workflow.id}/source">
    ${csrfField(visitor)}
    <button class="button button-quiet" type="submit">
      Check source<span class="visually-hidden">: ${workflow.name}</span>
    </button>
  </form>`;
}

function settings(source: Record<string, unknown>): string {
  return Object.entries(source)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

function result(check: SourceCheck): Html | string {
  if (!check.ok) return flash(`Could not read the source: ${check.error}`, 'error');
  const items = check.items.length
    ? scrollable(
        'First items',
        html`<table class="table" data-source-items>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Sender</th>
              <th scope="col">Subject</th>
              <th scope="col">Date</th>
            </tr>
          </thead>
          <tbody>
            ${check.items.map(
              (i) =>
                html`<tr>
                  <td class="mono">${i.id}</td>
                  <td>${i.sender}</td>
                  <td>${i.subject}</td>
                  <td>${when(i.date)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )
    : '';
  return html`<p data-source-count>
      ${plural(check.count, 'item')} in the
      source${check.items.length < check.count ? html`; the first ${check.items.length} below` : ''}. Nothing
      was acted on.
    </p>
    ${check.note ? html`<p class="muted">${check.note}</p>` : ''} ${items}`;
}

/** The source page: the workflow's source settings, the button, and the last check's result if any. */
export function sourceCheckPage(
  visitor: Visitor,
  data: { workflow: Workflow; check: SourceCheck | null; pending: number },
): Html {
  const { workflow, check } = data;
  return shell({
    title: `Source of ${workflow.name}`,
    nav: 'overview',
    visitor,
    pending: data.pending,
    body: html`<h1>Source of ${workflow.name}</h1>
      <p class="muted">${settings(publicSourceFields(workflow.source))}</p>
      ${check ? result(check) : html`<p>Connects, counts what is there and shows the first few items.</p>`}
      ${checkSourceForm(visitor, workflow)}
      <p><a href="/">Back to the overview</a></p>`,
  });
}
