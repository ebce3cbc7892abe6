/**
 * Credentials (`/credentials`): the workspace's secrets by name, those its workflows need
 * first (set or missing). A value is written, replaced or deleted here and never shown
 * again; "Test" runs the doctor's checks for it in place.
 */
import { html } from 'hono/html';
import type { CredentialInfo } from '../../credentials/credentials.ts';
import type { CheckResult } from '../../doctor/check.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, when, type Html } from './ui.ts';

/** A credential a workflow needs, with who needs it and whether it is set. */
export interface NeededRow {
  name: string;
  workflows: { id: string; name: string }[];
  info: CredentialInfo | null;
}

export interface CredentialsData {
  needed: NeededRow[];
  /** Set credentials no workflow names. */
  others: CredentialInfo[];
  pending: number;
  notice: string | null;
  /** A refused save: its one line, and the name typed (never the value). */
  error: { name: string; message: string } | null;
  /** The doctor's results for one credential, after its Test. */
  tested: { name: string; results: CheckResult[] } | null;
}

function setForm(visitor: Visitor, name: string | null, replacing: boolean): Html {
  const key = name ?? 'new';
  return html`<form class="inline-form" method="post" action="/credentials" id="set-${key}">
    ${csrfField(visitor)}
    ${
      name === null
        ? html`<label class="visually-hidden" for="name-new">Name</label>
            <input
              id="name-new"
              name="name"
              type="text"
              placeholder="MAIL_PASSWORD"
              autocomplete="off"
              required
            />`
        : html`<input type="hidden" name="name" value="${name}" />`
    }
    <label class="visually-hidden" for="value-${key}">Value${name ? ` of ${name}` : ''}</label>
    <input
      id="value-${key}"
      name="value"
      type="password"
      autocomplete="new-password"
      placeholder="${replacing ? 'new value' : 'value'}"
      required
    />
    <button class="button ${replacing ? '' : 'button-primary'}" type="submit">
      ${replacing ? 'Replace' : 'Set'}<span class="visually-hidden"> ${name ?? 'credential'}</span>
    </button>
  </form>`;
}

function tools(visitor: Visitor, name: string): Html {
  return html`<form class="inline-form" method="post" action="/credentials/${name}/test">
      ${csrfField(visitor)}<button class="button" type="submit">
        Test<span class="visually-hidden"> ${name}</span>
      </button>
    </form>
    <a class="button button-danger" href="/credentials/${name}/delete"
      >Delete<span class="visually-hidden"> ${name}</span></a
    >`;
}

function results(tested: CredentialsData['tested'], name: string): Html | string {
  if (!tested || tested.name !== name) return '';
  return html`<ul class="plain-list" data-test-results>
    ${tested.results.map(
      (r) =>
        html`<li>
          ${
            r.ok
              ? html`<span class="ready">ok</span> ${r.check}: ${r.detail}`
              : html`<span class="cannot-run">failed</span> ${r.check}: ${r.reason}`
          }
        </li>`,
    )}
  </ul>`;
}

function neededRow(visitor: Visitor, row: NeededRow, tested: CredentialsData['tested']): Html {
  return html`<li data-credential="${row.name}">
    <div>
      <strong class="mono">${row.name}</strong>
      ${
        row.info
          ? html`<span class="ready" data-state>set</span>
              <span class="muted small">${when(row.info.updated_at)}</span>`
          : html`<span class="cannot-run" data-state>missing</span>`
      }
      <span class="muted small"
        >needed by
        ${row.workflows.map(
          (w, i) => html`${i > 0 ? ', ' : ''}<a href="/workflows/${encodeURIComponent(w.id)}">${w.name}</a>`,
        )}</span
      >
      ${results(tested, row.name)}
    </div>
    <div class="page-actions">
      ${setForm(visitor, row.name, row.info !== null)} ${row.info ? tools(visitor, row.name) : ''}
    </div>
  </li>`;
}

/** The Credentials page. */
export function credentialsPage(visitor: Visitor, data: CredentialsData): Html {
  return shell({
    title: 'Credentials',
    nav: 'credentials',
    visitor,
    pending: data.pending,
    notice: data.error ? flash(`Nothing was saved: ${data.error.message}`, 'error') : flash(data.notice),
    body: html`<h1>Credentials</h1>
      <p class="lede">
        Passwords and keys your workflows use, sealed at rest in this workspace. A value is never shown again
        once saved: to change one, replace it.
      </p>
      <section aria-labelledby="needed-title">
        <h2 id="needed-title">Needed by your workflows</h2>
        ${
          data.needed.length === 0
            ? html`<p class="muted">None of your workflows needs a credential.</p>`
            : html`<ul class="credential-list" data-needed>
                ${data.needed.map((row) => neededRow(visitor, row, data.tested))}
              </ul>`
        }
      </section>
      <section aria-labelledby="others-title">
        <h2 id="others-title">Other credentials</h2>
        ${
          data.others.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<ul class="credential-list" data-others>
                ${data.others.map(
                  (c) =>
                    html`<li data-credential="${c.name}">
                      <div>
                        <strong class="mono">${c.name}</strong>
                        <span class="muted small">set ${when(c.updated_at)}</span>
                        ${results(data.tested, c.name)}
                      </div>
                      <div class="page-actions">
                        ${setForm(visitor, c.name, true)} ${tools(visitor, c.name)}
                      </div>
                    </li>`,
                )}
              </ul>`
        }
      </section>
      <section aria-labelledby="add-title">
        <h2 id="add-title">Add a credential</h2>
        <p class="small muted">A name in capitals, like <span class="mono">LINEAR_API_KEY</span>.</p>
        ${setForm(visitor, null, false)}
      </section>`,
  });
}

/** The confirm step before a credential is deleted: which workflows stop. */
export function deleteCredentialPage(
  visitor: Visitor,
  name: string,
  users: { id: string; name: string }[],
  pending: number,
): Html {
  return shell({
    title: `Delete ${name}`,
    nav: 'credentials',
    visitor,
    pending,
    body: html`<p class="eyebrow"><a href="/credentials">Credentials</a> / ${name}</p>
      <h1>Delete ${name}?</h1>
      ${
        users.length > 0
          ? html`<p class="cannot-run">
              ${users.map((w, i) => html`${i > 0 ? ', ' : ''}${w.name}`)} cannot run without it:
              ${users.length > 1 ? 'they are' : 'it is'} paused until it is set again.
            </p>`
          : html`<p>No workflow uses it.</p>`
      }
      <div class="page-actions">
        <form method="post" action="/credentials/${name}/delete" class="inline-form">
          ${csrfField(visitor)}<button class="button button-danger" type="submit">Delete ${name}</button>
        </form>
        <a class="button" href="/credentials">Keep it</a>
      </div>`,
  });
}
