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
import { restorableUntil, UNDO_WINDOW_MS } from '../../memory/rule-undo.ts';
import { NEVER_FIRED, type RuleFires } from '../../memory/rule-fires.ts';
import { shell, type Visitor } from './layout.ts';
import { proposalsSection } from './proposals.ts';
import { csrfField, flash, label, plural, when, type Html } from './ui.ts';

const UNDO_MINUTES = UNDO_WINDOW_MS / 60_000;

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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A time said briefly, `3 Dec 08:00` (UTC; the year when it is not this one's). */
function shortWhen(iso: string, now: Date = new Date()): Html | string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const year = d.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${d.getUTCFullYear()}`;
  const text = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${year} ${d.toISOString().slice(11, 16)}`;
  return html`<time datetime="${iso}" title="${d.toISOString().slice(0, 16).replace('T', ' ')} UTC"
    >${text}</time
  >`;
}

/** A rule named in words: its pattern (which says its action), else its match and action. */
export function ruleText(rule: Rule): string {
  return rule.pattern ?? `${matchText(rule.match)} → ${label(rule.action)}`;
}

/** How often a rule fired and when last: "fired 3 times · last 3 Dec 08:00", or "never fired". */
function firedText(fires: RuleFires, now: Date): Html | string {
  if (fires.fired === 0 || fires.last_fired_at === null) return 'never fired';
  return html`fired ${plural(fires.fired, 'time')} · last ${shortWhen(fires.last_fired_at, now)}`;
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

interface CardContext {
  names: Map<string, string>;
  byId: Map<string, Rule>;
  fires: ReadonlyMap<string, RuleFires>;
  now: Date;
}

function card(rule: Rule, ctx: CardContext): Html {
  const superseded = rule.superseded_by ? ctx.byId.get(rule.superseded_by) : undefined;
  const names = ctx.names;
  return html`<li class="rule ${rule.superseded_by ? 'rule-old' : ''}" id="${rule.id}">
    <div class="rule-main">
      <p class="rule-pattern">
        <strong>${ruleText(rule)}</strong>
      </p>
      <p class="small" data-fired>${firedText(ctx.fires.get(rule.id) ?? NEVER_FIRED, ctx.now)}</p>
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
    <a class="button button-danger" href="/memory/${rule.id}/delete">
      Delete<span class="visually-hidden"> the rule ${ruleText(rule)}</span>
    </a>
  </li>`;
}

/** A rule deleted a moment ago, with the Undo that restores it while it may be. */
function deletedNotice(rule: Rule, visitor: Visitor, now: Date): Html {
  const until = restorableUntil(rule);
  return html`<div class="flash flash-ok" role="status" data-deleted="${rule.id}">
    <p class="learned">
      <span>Deleted the rule: <strong>${ruleText(rule)}</strong>.</span>
      <form class="inline-form undo" method="post" action="/memory/${rule.id}/restore">
        ${csrfField(visitor)}
        <button class="button button-quiet" type="submit">Undo</button>
      </form>
      ${until ? html`<span class="muted small">until ${shortWhen(until.toISOString(), now)}</span>` : ''}
    </p>
  </div>`;
}

/** The step before deleting a rule: which rule, in words, and Delete or Cancel. */
export function deleteConfirmPage(
  visitor: Visitor,
  rule: Rule,
  names: Map<string, string>,
  pending: number,
  fires: RuleFires,
  now: Date,
): Html {
  return shell({
    title: 'Delete a rule?',
    nav: 'memory',
    visitor,
    pending,
    body: html`<h1>Delete this rule?</h1>
      <section class="confirm" data-confirm aria-labelledby="confirm-title">
        <h2 id="confirm-title" data-rule>${ruleText(rule)}</h2>
        <p>
          When ${matchText(rule.match)}: <strong>${label(rule.action)}</strong> · ${reachText(rule, names)}
        </p>
        <p class="small">${origin(rule)} · ${firedText(fires, now)}</p>
        <p class="muted">
          It stops firing at once. You can undo this from Memory for ${UNDO_MINUTES} minutes.
        </p>
        <div class="options">
          <form class="inline-form" method="post" action="/memory/${rule.id}/delete">
            ${csrfField(visitor)}
            <button class="button button-danger" type="submit">Delete</button>
          </form>
          <a class="button" href="/memory#${rule.id}">Cancel</a>
        </div>
      </section>`,
  });
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
  /** How often the rules fired, by id, and the rules deleted a moment ago (restorable). */
  extra: { fires?: ReadonlyMap<string, RuleFires>; deleted?: Rule[]; now?: Date } = {},
): Html {
  const shown = rules.filter((r) => r.deleted_at === null);
  const live = shown.filter((r) => isLive(r));
  const history = shown.filter((r) => r.superseded_by !== null);
  const now = extra.now ?? new Date();
  const ctx: CardContext = {
    names,
    byId: new Map(rules.map((r) => [r.id, r])),
    fires: extra.fires ?? new Map(),
    now,
  };
  return shell({
    title: 'Memory',
    nav: 'memory',
    visitor,
    pending,
    notice: html`${flash(notice)}${(extra.deleted ?? []).map((r) => deletedNotice(r, visitor, now))}`,
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
                ${live.map((r) => card(r, ctx))}
              </ul>`
        }
      </section>
      ${
        history.length === 0
          ? ''
          : html`<section aria-labelledby="history-title">
              <h2 id="history-title">History: ${plural(history.length, 'replaced rule')}</h2>
              <ul class="rules">
                ${history.map((r) => card(r, ctx))}
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
