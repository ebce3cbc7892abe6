/**
 * The Chat page: the chats on the left of the column, the open chat's turns, and a plain
 * form that posts and reloads (works with JavaScript off). With JavaScript, chat.js streams
 * the turn over SSE (`data-live="sse"`) while the form posts. Waiting steps and decisions
 * are amber cards answerable in place.
 */
import { html } from 'hono/html';
import type { Card, Turn, WorkflowCard } from '../../chats/chat-records.ts';
import type { ChatSummary } from '../../chats/chat-repository.ts';
import type { Decision } from '../../records/runs.ts';
import { draftFields } from './drafts.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, label, scrollable, withInlineCode, type Html } from './ui.ts';
import { waitingCard, workflowDetails } from './workflow-card-view.ts';
import { plural } from '../../text/plural.ts';

/** The step waiting for the person's yes, as the page shows it. */
export interface WaitingStep {
  id: string;
  summary: string;
  card?: WorkflowCard | undefined;
  /** The chat's draft as YAML, for Edit (a save only). */
  draft_yaml: string | null;
}

export interface ChatPageData {
  /** A page of the chats, most recently used first. */
  chats: ChatSummary[];
  /** Where the next (older) page of chats starts, when there is one. */
  older: string | null;
  /** False on a page reached by "Older chats". */
  isFirstPage: boolean;
  open: {
    chat_id: string;
    title: string;
    turns: Turn[];
    confirm: WaitingStep | null;
    /** The decisions still waiting, by id (a card shows its drafted words from them). */
    waiting: ReadonlyMap<string, Decision>;
    /** Questions its runs asked after their turn ended (a run that went on elsewhere). */
    late: Card[];
  } | null;
  pending: number;
  live: 'sse' | 'poll';
  /** The last event of the chat's feed the page includes; the stream resumes after it. */
  after: number;
  error: string | null;
  /** One line of news for the person (a message sent to be answered elsewhere). */
  notice?: string | null;
}

export function chatPage(visitor: Visitor, d: ChatPageData): Html {
  const open = d.open;
  const action = open ? `/chat/${encodeURIComponent(open.chat_id)}` : '/chat';
  const body = html`<h1>Chat</h1>
    <p class="muted">
      Describe a workflow in your own words, preview it, save it, run it. Nothing changes until you say yes.
    </p>
    <div class="chat-layout">
      <aside class="chat-list" aria-label="Chats">
        <form method="post" action="/chat/new">
          ${csrfField(visitor)}<button class="button" type="submit">New chat</button>
        </form>
        <ul>
          ${d.chats.map(
            (c) =>
              html`<li>
                <a
                  href="/chat/${encodeURIComponent(c.chat_id)}"
                  ${open?.chat_id === c.chat_id ? html`aria-current="page"` : ''}
                  >${c.title}</a
                >
              </li>`,
          )}
        </ul>
        ${d.isFirstPage ? '' : html`<p class="small"><a href="${action}">Newest chats</a></p>`}
        ${
          d.older
            ? html`<p class="small">
                <a href="${action}?cursor=${encodeURIComponent(d.older)}">Older chats</a>
              </p>`
            : ''
        }
      </aside>
      <section
        class="chat"
        data-chat-id="${open?.chat_id ?? ''}"
        data-live="${d.live}"
        data-after="${d.after}"
      >
        ${open ? chatHeader(visitor, open.chat_id, open.title) : ''}
        <ol class="turns" data-turns>
          ${open?.turns.map((t) => turnView(visitor, open.chat_id, t, open.confirm, open.waiting)) ?? ''}
          ${
            open && open.late.length > 0
              ? html`<li class="turn turn-assistant" data-late-questions>
                  <p>
                    Your run asked ${open.late.length === 1 ? 'a question' : `${open.late.length} questions`}:
                  </p>
                  ${open.late.map((card) => cardView(visitor, open.chat_id, card, open.confirm, open.waiting))}
                </li>`
              : ''
          }
        </ol>
        <div class="turn turn-assistant live" data-live-turn hidden>
          <p data-live-text></p>
          <ul data-live-steps></ul>
        </div>
        ${d.error ? html`<p class="flash flash-error" role="alert">${d.error}</p>` : ''}
        ${d.notice ? html`<p class="flash flash-ok" role="status" data-sent>${d.notice}</p>` : ''}
        <form class="chat-form" method="post" action="${action}" data-chat-form>
          ${csrfField(visitor)}
          <label for="message">Message</label>
          <textarea
            id="message"
            name="message"
            rows="3"
            required
            placeholder="Every weekday at 8, go through my inbox, archive newsletters, ask me about anything from customers"
          ></textarea>
          <button class="button button-primary" type="submit">Send</button>
        </form>
      </section>
    </div>`;
  return shell({ title: 'Chat', nav: 'chat', visitor, pending: d.pending, body, scripts: ['chat.js'] });
}

function chatHeader(visitor: Visitor, chatId: string, title: string): Html {
  const base = `/chat/${encodeURIComponent(chatId)}`;
  return html`<div class="chat-head">
    <form method="post" action="${base}/rename" class="inline-form">
      ${csrfField(visitor)}<label class="visually-hidden" for="title">Title</label>
      <input id="title" name="title" value="${title}" maxlength="60" />
      <button class="button" type="submit">Rename</button>
    </form>
    <form method="post" action="${base}/delete" class="inline-form">
      ${csrfField(visitor)}<button class="button" type="submit">Delete chat</button>
    </form>
  </div>`;
}

function turnView(
  visitor: Visitor,
  chatId: string,
  t: Turn,
  confirm: WaitingStep | null,
  waiting: ReadonlyMap<string, Decision>,
): Html {
  // A workflow shown and then asked to be saved in the same turn is shown once, on the card.
  const onCard = new Set(
    t.cards.flatMap((c) => (c.kind === 'confirm' && c.card ? [c.card.workflow_id] : [])),
  );
  const cards = t.cards.filter((c) => c.kind !== 'workflow' || !onCard.has(c.card.workflow_id));
  return html`<li class="turn turn-${t.role}" data-role="${t.role}">
    <p class="turn-text">${withInlineCode(t.text)}</p>
    ${cards.map((card) => cardView(visitor, chatId, card, confirm, waiting))}
  </li>`;
}

function cardView(
  visitor: Visitor,
  chatId: string,
  card: Card,
  confirm: WaitingStep | null,
  waiting: ReadonlyMap<string, Decision>,
): Html | string {
  const base = `/chat/${encodeURIComponent(chatId)}`;
  switch (card.kind) {
    case 'handoff':
      return html`<p class="chat-step" data-handoff>⇢ handed to the ${card.to}</p>`;
    case 'workflow_saved':
      return html`<p class="chat-step" data-saved="${card.workflow_id}">
        Saved workflow
        <a href="/workflows/${encodeURIComponent(card.workflow_id)}/source">${card.workflow_id}</a>
      </p>`;
    case 'run':
      return html`<p class="chat-step" data-run="${card.run_id}">
        <a href="/runs/${encodeURIComponent(card.run_id)}">${card.text}</a>
      </p>`;
    case 'preview':
      return html`<div class="chat-card" data-preview="${card.workflow_id}">
        <p>
          Preview of ${card.workflow_id}: ${card.rows.length} of ${plural(card.count, 'item')}. Nothing was
          touched.
        </p>
        ${scrollable(
          'Preview',
          html`<table>
            <thead>
              <tr>
                <th>From</th>
                <th>Subject</th>
                <th>The gate would</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              ${card.rows.map(
                (r) =>
                  html`<tr data-verdict="${r.verdict}">
                    <td>${r.sender}</td>
                    <td>${r.subject}</td>
                    <td>
                      ${r.verdict === 'ask' ? html`<span class="pending">ask you</span>` : r.verdict === 'rule' ? `rule: ${label(r.action)}` : label(r.action)}
                    </td>
                    <td>${r.reason}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        )}
      </div>`;
    case 'confirm':
      return confirm?.id === card.confirm_id
        ? waitingCard(visitor, base, confirm, confirm.draft_yaml)
        : html`<p class="chat-step muted">${card.summary} (no longer waiting)</p>`;
    case 'workflow':
      return html`<div class="chat-card" data-workflow="${card.card.workflow_id}" data-state="${card.state}">
        <p>
          <strong>${card.card.name}</strong> (${card.card.workflow_id}) ·
          ${card.state === 'draft' ? 'draft, not saved' : card.state}
        </p>
        ${card.changed.length > 0 ? html`<p data-changed>Changed: ${card.changed.join('; ')}</p>` : ''}
        ${workflowDetails(card.card)}
      </div>`;
    case 'decision': {
      const decision = waiting.get(card.decision_id);
      return decision
        ? html`<form
            class="chat-card question"
            method="post"
            action="${base}/decide"
            data-decision="${card.decision_id}"
          >
            ${csrfField(visitor)}<input type="hidden" name="decision_id" value="${card.decision_id}" />
            <p><strong>${card.subject}</strong> from ${card.sender} · suggested: ${label(card.suggested)}</p>
            ${draftFields(decision, `chat-${chatId}-`)}
            ${card.options.map((o) => html`<button class="button" type="submit" name="action" value="${o}">${label(o)}</button>`)}
          </form>`
        : html`<p class="chat-step muted">${card.subject}: answered</p>`;
    }
  }
}
