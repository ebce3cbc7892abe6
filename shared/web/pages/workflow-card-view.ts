/**
 * A workflow card on the Chat page: the whole workflow in plain words, and for a save waiting
 * for the person, Yes, No and Edit, plus a write-only field per missing credential.
 */
import { html } from 'hono/html';
import type { PreviewRow, WorkflowCard } from '../../chats/chat-records.ts';
import type { Visitor } from './layout.ts';
import { csrfField, label, scrollable, type Html } from './ui.ts';
import { plural } from '../../text/plural.ts';

/** The card's details as a definition list. */
export function workflowDetails(card: WorkflowCard): Html {
  return html`<dl class="workflow-card" data-workflow-card="${card.workflow_id}">
    <dt>Source</dt>
    <dd data-part="source">${card.source}</dd>
    <dt>Schedule</dt>
    <dd data-part="schedule">${card.schedule}</dd>
    <dt>Instructions</dt>
    <dd data-part="instructions">${card.instructions}</dd>
    <dt>Actions</dt>
    <dd data-part="actions">${card.actions.join(', ')}</dd>
    <dt>Threshold</dt>
    <dd data-part="threshold">${card.threshold}</dd>
    <dt>Credentials</dt>
    <dd data-part="credentials">
      ${
        card.credentials.length === 0
          ? 'none needed'
          : card.credentials.map(
              (c) =>
                html`<span data-credential="${c.name}" data-set="${c.set ? 'true' : 'false'}"
                  >${c.name} ${c.set ? '(set)' : html`<strong class="pending">(missing)</strong>`}</span
                > `,
            )
      }
    </dd>
    <dt>Preview</dt>
    <dd data-part="preview">${previewView(card.preview)}</dd>
  </dl>`;
}

function previewView(preview: WorkflowCard['preview']): Html | string {
  if (preview === null) return 'not made';
  if (preview.error !== undefined) return `could not read the source: ${preview.error}`;
  if (preview.rows.length === 0) return 'the source has nothing to preview right now';
  return html`${preview.rows.length} of ${plural(preview.count, 'item')}, nothing touched:
  ${scrollable(
    'Preview',
    html`<table>
      <thead>
        <tr>
          <th>From</th>
          <th>Subject</th>
          <th>It would</th>
        </tr>
      </thead>
      <tbody>
        ${preview.rows.map(
          (r: PreviewRow) =>
            html`<tr data-verdict="${r.verdict}">
              <td>${r.sender}</td>
              <td>${r.subject}</td>
              <td>${r.verdict === 'ask' ? html`<span class="pending">ask you</span>` : label(r.action)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  )}`;
}

/** A save (or delete) waiting for the person: the card, Yes, No, Edit and the credential fields. */
export function waitingCard(
  visitor: Visitor,
  base: string,
  confirm: { id: string; summary: string; card?: WorkflowCard | undefined },
  draftYaml: string | null,
): Html {
  const card = confirm.card;
  const missing = card?.credentials.filter((c) => !c.set) ?? [];
  return html`<div class="chat-card chat-confirm" data-confirm="${confirm.id}">
    <p><strong>${confirm.summary}?</strong></p>
    ${card ? workflowDetails(card) : ''}
    ${
      card && card.saves_as === 'paused'
        ? html`<p class="pending" data-needs>
            Needs ${missing.map((c) => c.name).join(', ')}: set it below, or it is saved paused and does not
            run.
          </p>`
        : ''
    }
    ${missing.map(
      (c) =>
        html`<form
          method="post"
          action="${base}/credential"
          class="inline-form"
          data-credential-form="${c.name}"
        >
          ${csrfField(visitor)}<input type="hidden" name="name" value="${c.name}" />
          <label for="cred-${c.name}">${c.name}</label>
          <input id="cred-${c.name}" name="value" type="password" autocomplete="off" required />
          <button class="button" type="submit">Set ${c.name}</button>
        </form>`,
    )}
    <form method="post" action="${base}/confirm" class="inline-form">
      ${csrfField(visitor)}<input type="hidden" name="confirm_id" value="${confirm.id}" />
      <button class="button button-primary" type="submit" data-answer="yes">Yes</button>
    </form>
    <form method="post" action="${base}/cancel" class="inline-form">
      ${csrfField(visitor)}<input type="hidden" name="confirm_id" value="${confirm.id}" />
      <button class="button" type="submit" data-answer="no">No</button>
    </form>
    ${
      draftYaml !== null
        ? html`<details data-edit>
            <summary class="button">Edit</summary>
            <p class="muted">Change the workflow itself, or say what to change in the message box below.</p>
            <form method="post" action="${base}/edit">
              ${csrfField(visitor)}<label for="edit-${confirm.id}">Workflow (YAML)</label>
              <textarea id="edit-${confirm.id}" name="workflow" rows="14">${draftYaml}</textarea>
              <button class="button" type="submit">Save changes to the draft</button>
            </form>
          </details>`
        : ''
    }
  </div>`;
}
