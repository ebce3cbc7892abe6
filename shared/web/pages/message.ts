/**
 * The message on the decision screen, read in full from its source and shown as
 * text only: no HTML from the mail is ever rendered, no remote image is ever
 * loaded, and links are not links — each is shown as text with its real host
 * (IDN hosts in punycode) beside it, and a link whose visible text names a
 * different host is called out.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import type { Workflow } from '../../workflows/schema.ts';
import { when, type Html } from './ui.ts';

export interface MessageView {
  sender: { address: string; name: string };
  subject: string;
  date: string | null;
  text: string;
  /** `full`: read from the source; `snippet`: the message is gone, this is what the run kept. */
  from: 'full' | 'snippet';
  /** The text was cut at this many characters; null when it is shown whole. */
  shortenedAt: number | null;
}

/** The message behind a decision, in full when the source still has it. */
export async function loadMessage(workflow: Workflow | null, decision: Decision): Promise<MessageView> {
  const snippet: MessageView = {
    sender: { address: decision.sender, name: '' },
    subject: decision.subject,
    date: null,
    text: decision.snippet,
    from: 'snippet',
    shortenedAt: null,
  };
  if (workflow?.source.type !== 'maildir') return snippet;
  try {
    // The mail parser loads only when a Maildir message is shown (never on Lambda).
    const { findMailFile, MAX_TEXT, readMailItem } = await import('../../sources/maildir/maildir.ts');
    const file = await findMailFile(workflow.source.path, decision.item_id);
    if (!file) return snippet;
    const read = await readMailItem(file);
    if (!read.ok) return snippet;
    const { item } = read;
    return {
      sender: item.from,
      subject: item.subject,
      date: item.date,
      text: item.text,
      from: 'full',
      shortenedAt: item.text.length >= MAX_TEXT ? MAX_TEXT : null,
    };
  } catch {
    return snippet; // the source is unreachable from here (e.g. a Maildir on another machine)
  }
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`[\]{}|\\^]+/gi;

/** The host a browser would contact, or null for something that is not a URL. */
export function realHost(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/** Trailing punctuation is prose, not part of the URL. */
function trimUrl(url: string): string {
  return url.replace(/[.,;:!?)]+$/, '');
}

/** The body as escaped text with each URL shown inert next to its real host. */
export function renderBody(text: string): Html {
  const parts: (Html | string)[] = [];
  let at = 0;
  let previous: { host: string | null; end: number } | null = null;
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = trimUrl(match[0]);
    const start = match.index;
    parts.push(text.slice(at, start));
    const host = realHost(url);
    // html-to-text writes `<a href="B">A</a>` as `A [B]`: the visible text and the real target.
    const isTarget = text[start - 1] === '[' && previous !== null && start - previous.end <= 3;
    const mismatch = isTarget && previous?.host && host && previous.host !== host ? previous.host : null;
    const lookalike = host !== null && (host.startsWith('xn--') || host.includes('.xn--'));
    parts.push(
      html`<span class="link"
        ><span class="link-url">${url}</span
        ><span class="link-host"
          ><span class="link-host-label">goes to </span>${host ?? 'not a valid address'}</span
        >${
          mismatch
            ? html`<strong class="link-warn">the text says ${mismatch}, the link goes to ${host}</strong>`
            : ''
        }${lookalike ? html`<strong class="link-warn">international look-alike host</strong>` : ''}</span
      >`,
    );
    at = start + url.length;
    previous = { host, end: at };
  }
  parts.push(text.slice(at));
  return html`<div class="mail-body" data-mail-body>${parts}</div>`;
}

/** The message block: sender, subject, date and the inert body. */
export function messageBlock(message: MessageView): Html {
  const { sender } = message;
  return html`<article class="mail" aria-labelledby="mail-subject">
    <header class="mail-head">
      <p class="mail-from">
        ${sender.name ? html`<strong>${sender.name}</strong> ` : ''}<span class="mono"
          >&lt;${sender.address}&gt;</span
        >
      </p>
      <h2 id="mail-subject" class="mail-subject">${message.subject || '(no subject)'}</h2>
      <p class="muted small">${when(message.date)}</p>
    </header>
    ${renderBody(message.text)}
    ${
      message.from === 'snippet'
        ? html`<p class="muted small">
            The message is no longer in the source; this is the excerpt the run kept with the question.
          </p>`
        : ''
    }
    ${
      message.shortenedAt !== null
        ? html`<p class="muted small">Shown up to ${message.shortenedAt.toLocaleString('en')} characters.</p>`
        : ''
    }
    <p class="muted small">Shown as plain text: nothing in it runs, loads or links anywhere.</p>
  </article>`;
}
