/**
 * Memory (`/memory`): the rules the agent acts on — where each came from (the
 * decision, the item, your note), what replaced what — and a Delete for each; above them,
 * the domain rules Memory proposes, to accept or dismiss.
 */
import { html } from 'hono/html';
import type { LearningFailure } from '../../records/learning.ts';
import { MAX_LEARN_ATTEMPTS } from '../../runs/learning.ts';
import type { DomainProposal } from '../../records/proposals.ts';
import { isLive, type Rule, type RuleMatch } from '../../records/rule.ts';
import { reachOf } from '../../memory/source-key.ts';
import { ruleFound } from '../../memory/rules-repository.ts';
import { shell, type Visitor } from './layout.ts';
import { proposalsSection } from './proposals.ts';
import { csrfField, flash, label, plural, when, type Html } from './ui.ts';

/** Where a rule applies, as the person reads it: the mailbox, one workflow, or every workflow. */
function reachText(rule: Rule, names: ReadonlyMap<string, string>): string {
  const reach = reachOf(rule);
  if (reach.kind === 'source') return `every workflow reading ${reach.key}`;
  if (reach.kind === 'workflow') return `only workflow ${names.get(reach.id) ?? reach.id}`;
  return 'every workflow';
}

/** How a rule's match reads to a person. */
export function matchText(match: RuleMatch): string {
  if ('sender' in match) return `mail from ${match.sender}`;
  if ('domain' in match) return `anything from ${match.domain.startsWith('@') ? '' : '@'}${match.domain}`;
  return `mentions ${match.keywords.map((k) => `“${k}”`).join(' and ')}`;
}

function origin(rule: Rule): Html {
  if (rule.source === 'you')
    return html`<span>A rule you set${rule.note ? html`: “${rule.note}”` : ''}</span>`;
  return html`<span>
    Learned from
    ${
      rule.decision_id ? html`<a href="/decide/${rule.decision_id}">your answer</a>` : 'an answer'
    }${rule.item_id ? html` about <span class="mono">${rule.item_id}</span>` : ''}${
      rule.note ? html`, your note: “${rule.note}”` : ', without a note'
    }
  </span>`;
}

function card(rule: Rule, visitor: Visitor, names: Map<string, string>, byId: Map<string, Rule>): Html {
  const superseded = rule.superseded_by ? byId.get(rule.superseded_by) : undefined;
  return html`<li class="rule ${rule.superseded_by ? 'rule-old' : ''}" id="${rule.id}">
    <div class="rule-main">
      <p class="rule-pattern">
        <strong>${rule.pattern ?? `${matchText(rule.match)} → ${label(rule.action)}`}</strong>
      </p>
      <p class="small">
        When ${matchText(rule.match)}: <strong>${label(rule.action)}</strong>
        <span class="muted"
          >· ${reachText(rule, names)} · confidence ${rule.confidence.toFixed(2)} ·
          ${when(rule.created_at)}</span
        >
      </p>
      <p class="small">${origin(rule)}</p>
      ${
        rule.superseded_by
          ? html`<p class="small muted">
              Replaced by
              <a href="#${rule.superseded_by}">${superseded?.pattern ?? rule.superseded_by}</a>; kept as
              history, never used.
            </p>`
          : ''
      }
    </div>
    <form method="post" action="/memory/${rule.id}/delete">
      ${csrfField(visitor)}
      <button class="button button-danger" type="submit">
        Delete<span class="visually-hidden"> the rule ${rule.pattern ?? matchText(rule.match)}</span>
      </button>
    </form>
  </li>`;
}

/** Answers the learner could not learn from (yet), and why: never dropped silently. */
function unlearnedSection(unlearned: LearningFailure[]): Html | string {
  if (unlearned.length === 0) return '';
  return html`<section aria-labelledby="unlearned-title">
    <h2 id="unlearned-title">Not learned: ${plural(unlearned.length, 'answer')}</h2>
    <p class="muted">
      These answers stand, but no rule could be learned from them yet. Learning is tried again
      (${MAX_LEARN_ATTEMPTS} times in all); until it works, such items are asked again.
    </p>
    <ul class="rules">
      ${unlearned.map(
        (f) =>
          html`<li class="rule">
            <p><strong>${f.subject}</strong> from ${f.sender}</p>
            <p class="muted">Could not learn (tried ${plural(f.attempts, 'time')}): ${f.error}</p>
          </li>`,
      )}
    </ul>
  </section>`;
}

/** The Memory page. */
export function memoryPage(
  visitor: Visitor,
  rules: Rule[],
  names: Map<string, string>,
  pending: number,
  notice: string | null,
  proposals: DomainProposal[] = [],
  unlearned: LearningFailure[] = [],
  /** Where the next page of rules starts (the rules are paged, newest first); null: no more. */
  olderRules: string | null = null,
  /** What the list is filtered by (`?q=&action=&scope=`); the rules given are already filtered. */
  filter: MemoryFilter = { q: '', action: '', scope: '' },
): Html {
  const live = rules.filter((r) => isLive(r));
  const history = rules.filter((r) => r.superseded_by !== null);
  const byId = new Map(rules.map((r) => [r.id, r]));
  return shell({
    title: 'Memory',
    nav: 'memory',
    visitor,
    pending,
    notice: flash(notice),
    body: html`<h1>Memory</h1>
      <p class="lede">
        Rules are applied before the gate decides, so a matching item is not asked about again. A rule fires
        only on an exact sender, a whole domain, or at least two distinct keywords. Read this list after the
        first week: a rule that is too broad quietly handles things you would have wanted to see.
      </p>
      ${filterForm(filter)} ${unlearnedSection(unlearned)} ${proposalsSection(visitor, proposals, names)}
      <section aria-labelledby="live-title">
        <h2 id="live-title">In use (${live.length})</h2>
        ${
          live.length === 0
            ? html`<p class="muted">No rules yet. Every answer you give teaches one narrow rule.</p>`
            : html`<ul class="rules">
                ${live.map((r) => card(r, visitor, names, byId))}
              </ul>`
        }
      </section>
      ${
        history.length === 0
          ? ''
          : html`<section aria-labelledby="history-title">
              <h2 id="history-title">History: ${plural(history.length, 'replaced rule')}</h2>
              <ul class="rules">
                ${history.map((r) => card(r, visitor, names, byId))}
              </ul>
            </section>`
      }
      ${olderRules ? html`<p><a href="/memory?cursor=${encodeURIComponent(olderRules)}">Older rules</a></p>` : ''}`,
  });
}

/** What Memory's list is filtered by: text found in a rule, its action, where it applies. */
export interface MemoryFilter {
  q: string;
  action: string;
  /** "source", "workflow", "every", or "" for all. */
  scope: string;
}

/** Whether a rule passes Memory's filter. */
export function passesFilter(rule: Rule, filter: MemoryFilter): boolean {
  return (
    ruleFound(rule, filter.q) &&
    (!filter.action || rule.action === filter.action) &&
    (!filter.scope || reachOf(rule).kind === filter.scope)
  );
}

function filterForm(filter: MemoryFilter): Html {
  const scopes = [
    ['', 'Anywhere'],
    ['source', 'A whole mailbox'],
    ['workflow', 'One workflow'],
    ['every', 'Every workflow'],
  ] as const;
  return html`<form method="get" action="/memory" class="memory-filter" role="search">
    <label for="memory-q">Search</label>
    <input
      id="memory-q"
      type="search"
      name="q"
      value="${filter.q}"
      placeholder="sender, domain, action, note"
    />
    <label for="memory-action">Action</label>
    <input id="memory-action" name="action" value="${filter.action}" placeholder="any" />
    <label for="memory-scope">Applies to</label>
    <select id="memory-scope" name="scope">
      ${scopes.map(([value, text]) => html`<option value="${value}" ${filter.scope === value ? 'selected' : ''}>${text}</option>`)}
    </select>
    <button type="submit">Filter</button>
  </form>`;
}
