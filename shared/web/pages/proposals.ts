/** The Memory page's "Proposed" section: domain rules with their evidence, Accept or Dismiss. */
import { html } from 'hono/html';
import { evidenceSenders, proposalPattern } from '../../runs/domain-proposals.ts';
import { type DomainProposal } from '../../records/proposals.ts';
import type { Visitor } from './layout.ts';
import { csrfField, label, plural, when, type Html } from './ui.ts';

function card(p: DomainProposal, visitor: Visitor, names: Map<string, string>): Html {
  return html`<li class="proposal" id="${p.id}">
    <div class="rule-main">
      <p class="rule-pattern"><strong>${proposalPattern(p)}</strong></p>
      <p class="small">
        Because you answered <strong>${label(p.action)}</strong> for
        ${plural(evidenceSenders(p).length, 'sender')} of @${p.domain}
        <span class="muted">· ${names.get(p.workflow_id) ?? p.workflow_id} · ${when(p.created_at)}</span>
      </p>
      <ul class="small evidence">
        ${p.evidence.map(
          (e) =>
            html`<li>
              <a href="/decide/${e.decision_id}">${e.sender}</a>: “${e.subject}” →
              ${label(e.action)}${e.note ? html`, your note: “${e.note}”` : ''}
            </li>`,
        )}
      </ul>
    </div>
    <div class="proposal-actions">
      <form method="post" action="/memory/proposals/${p.id}/accept">
        ${csrfField(visitor)}
        <button class="button" type="submit">
          Accept<span class="visually-hidden"> ${proposalPattern(p)}</span>
        </button>
      </form>
      <form method="post" action="/memory/proposals/${p.id}/dismiss">
        ${csrfField(visitor)}
        <button class="button button-quiet" type="submit">
          Dismiss<span class="visually-hidden"> ${proposalPattern(p)}</span>
        </button>
      </form>
    </div>
  </li>`;
}

/** Open proposals, or nothing when there are none. Never applied until accepted. */
export function proposalsSection(
  visitor: Visitor,
  proposals: DomainProposal[],
  names: Map<string, string>,
): Html | string {
  const open = proposals.filter((p) => p.status === 'proposed');
  if (open.length === 0) return '';
  return html`<section aria-labelledby="proposed-title">
    <h2 id="proposed-title">Proposed (${open.length})</h2>
    <p class="muted">
      You answered several senders of one domain alike. Nothing here is applied until you accept it; accepting
      makes it a rule you set.
    </p>
    <ul class="rules">
      ${open.map((p) => card(p, visitor, names))}
    </ul>
  </section>`;
}
