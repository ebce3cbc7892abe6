/**
 * Workspaces (`/workspaces`): each workspace with its workflows and waiting decisions;
 * create (then open it), rename, and delete after typing its name, with what is lost listed.
 */
import { html } from 'hono/html';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, plural, type Html } from './ui.ts';

export interface WorkspaceRow {
  id: string;
  name: string;
  workflows: number;
  pending: number;
  current: boolean;
}

export interface WorkspacesData {
  rows: WorkspaceRow[];
  pending: number;
  notice: string | null;
  /** A refused change: which form, its one line, and what was typed. */
  error: { form: string; message: string; typed: string } | null;
}

function errorFor(data: WorkspacesData, form: string): Html | string {
  return data.error?.form === form
    ? html`<p class="field-error" role="alert" data-error>${data.error.message}</p>`
    : '';
}

function row(visitor: Visitor, w: WorkspaceRow, data: WorkspacesData): Html {
  const typed = data.error?.form === `rename-${w.id}` ? data.error.typed : w.name;
  return html`<li data-workspace="${w.id}">
    <div>
      <strong>${w.name}</strong> ${w.current ? html`<span class="muted small">(open)</span>` : ''}
      <span class="muted small"
        >${plural(w.workflows, 'workflow')}${w.pending > 0 ? html` · <span class="pending">${w.pending} waiting</span>` : ''}</span
      >
      ${errorFor(data, `rename-${w.id}`)}
    </div>
    <div class="page-actions">
      <form class="inline-form" method="post" action="/workspace">
        ${csrfField(visitor)}<input type="hidden" name="workspace" value="${w.name}" />
        <input type="hidden" name="next" value="/" />
        <button class="button" type="submit">Open<span class="visually-hidden"> ${w.name}</span></button>
      </form>
      <form class="inline-form" method="post" action="/workspaces/${encodeURIComponent(w.id)}/rename">
        ${csrfField(visitor)}
        <label class="visually-hidden" for="rename-${w.id}">New name for ${w.name}</label>
        <input id="rename-${w.id}" name="name" type="text" value="${typed}" required />
        <button class="button" type="submit">Rename</button>
      </form>
      ${
        w.id === 'default'
          ? ''
          : html`<a class="button button-danger" href="/workspaces/${encodeURIComponent(w.id)}/delete"
              >Delete…<span class="visually-hidden"> ${w.name}</span></a
            >`
      }
    </div>
  </li>`;
}

/** The Workspaces page. */
export function workspacesPage(visitor: Visitor, data: WorkspacesData): Html {
  const typed = data.error?.form === 'create' ? data.error.typed : '';
  return shell({
    title: 'Workspaces',
    nav: 'workspaces',
    visitor,
    pending: data.pending,
    notice: flash(data.notice),
    body: html`<h1>Workspaces</h1>
      <p class="lede">
        Each workspace keeps its own workflows, credentials, rules and questions. A team, a client or a
        project each get one.
      </p>
      <ul class="credential-list" data-workspaces>
        ${data.rows.map((w) => row(visitor, w, data))}
      </ul>
      <section aria-labelledby="create-title">
        <h2 id="create-title">New workspace</h2>
        ${errorFor(data, 'create')}
        <form class="inline-form" method="post" action="/workspaces">
          ${csrfField(visitor)}
          <label for="new-workspace">Name</label>
          <input
            id="new-workspace"
            name="name"
            type="text"
            value="${typed}"
            placeholder="team-ops"
            required
          />
          <button class="button button-primary" type="submit">Create and open it</button>
        </form>
        <p class="small muted">
          Lowercase letters, digits and hyphens, like <span class="mono">team-ops</span>.
        </p>
      </section>`,
  });
}

/** The confirm step: what goes with the workspace, and its name to type. */
export function deleteWorkspacePage(
  visitor: Visitor,
  w: { id: string; name: string },
  contents: { collection: string; count: number }[],
  pending: number,
  error: string | null,
): Html {
  return shell({
    title: `Delete ${w.name}`,
    nav: 'workspaces',
    visitor,
    pending,
    body: html`<p class="eyebrow"><a href="/workspaces">Workspaces</a> / ${w.name}</p>
      <h1>Delete the workspace ${w.name}?</h1>
      ${
        contents.length === 0
          ? html`<p>It is empty: nothing else is lost.</p>`
          : html`<p>Everything in it is deleted for good:</p>
              <ul data-lost>
                ${contents.map((c) => html`<li>${plural(c.count, c.collection.replace(/_/g, ' ').replace(/s$/, ''))}</li>`)}
              </ul>`
      }
      <p>Its API keys stop working.</p>
      ${error ? html`<p class="field-error" role="alert" data-error>${error}</p>` : ''}
      <form class="settings" method="post" action="/workspaces/${encodeURIComponent(w.id)}/delete">
        ${csrfField(visitor)}
        <label for="confirm-name">Type <span class="mono">${w.name}</span> to confirm</label>
        <input id="confirm-name" name="confirm" type="text" autocomplete="off" required />
        <div class="page-actions">
          <button class="button button-danger" type="submit">Delete ${w.name}</button>
          <a class="button" href="/workspaces">Keep it</a>
        </div>
      </form>`,
  });
}
