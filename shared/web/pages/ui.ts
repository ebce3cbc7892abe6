/**
 * Small pieces the pages share. Every value goes through hono's `html`, which
 * escapes it; nothing here takes markup from data. No inline styles or scripts
 * (the CSP forbids them): looks come from /assets/app.css classes.
 */
import { html } from 'hono/html';
import type { RunStatus } from '../../records/runs.ts';

/** What `html` returns; pages compose these. */
export type Html = ReturnType<typeof html>;

/** Anything that carries a CSRF token for its forms. */
export interface CsrfHolder {
  csrf: string;
}

/** The hidden CSRF field every state-changing form carries. */
export function csrfField(holder: CsrfHolder): Html {
  return html`<input type="hidden" name="_csrf" value="${holder.csrf}" />`;
}

/** `file_ticket` → `file ticket`. */
export function label(action: string): string {
  return action.replace(/_/g, ' ');
}

/** `1 decision`, `2 decisions`: one definition for the pages and the CLI. */
export { plural } from '../../text/plural.ts';

/** The amber count of waiting decisions (nothing when there are none). */
export function pendingBadge(count: number): Html | string {
  if (count === 0) return '';
  return html`<span class="badge" data-pending-badge
    >${count}<span class="visually-hidden"> ${count === 1 ? 'decision' : 'decisions'} waiting</span></span
  >`;
}

/** A run's status as a coloured pill; the inspector updates `data-run-status` live. */
export function statusPill(status: RunStatus | string, live = false): Html {
  return html`<span class="status status-${status}" ${live ? html`data-run-status` : ''}>${status}</span>`;
}

/** A timestamp a person can read, with the exact value for machines. */
export function when(iso: string | null): Html | string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

/** `0.3` → `0.30`. */
export function score(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '0.00';
}

/**
 * The confidence gauge: a bar for the agent's confidence and a mark at the
 * threshold. Below the mark it asks; at or above it may act alone.
 */
export function gauge(confidence: number, threshold: number): Html {
  const clamp = (v: number) => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0));
  const c = clamp(confidence);
  const t = clamp(threshold);
  const below = c < t;
  const width = 320;
  const x = Math.round(t * width);
  const summary = `Confidence ${score(c)} against the threshold ${score(t)}: ${
    below ? 'below it, so the agent asked you' : 'at or above it'
  }.`;
  return html`<figure class="gauge">
    <svg viewBox="0 0 ${width} 44" width="${width}" height="44" aria-hidden="true" focusable="false">
      <rect class="gauge-track" x="0" y="8" width="${width}" height="14" rx="7" />
      <rect
        class="${below ? 'gauge-fill gauge-below' : 'gauge-fill'}"
        x="0"
        y="8"
        width="${Math.max(6, Math.round(c * width))}"
        height="14"
        rx="7"
      />
      <line class="gauge-mark" x1="${x}" x2="${x}" y1="2" y2="28" />
      <text class="gauge-label" x="${Math.min(Math.max(x, 40), width - 40)}" y="41" text-anchor="middle">
        threshold ${score(t)}
      </text>
    </svg>
    <figcaption>${summary}</figcaption>
  </figure>`;
}

/**
 * A wide table in a box that scrolls sideways on its own, so a narrow screen never
 * scrolls the whole page; focusable so a keyboard can scroll it too.
 */
export function scrollable(name: string, table: Html): Html {
  return html`<div class="table-scroll" role="region" aria-label="${name}" tabindex="0">${table}</div>`;
}

/** A short notice at the top of a page. */
export function flash(text: string | null, kind: 'ok' | 'error' = 'ok'): Html | string {
  if (!text) return '';
  return html`<p class="flash flash-${kind}" role="status">${text}</p>`;
}

/**
 * Text with its `backtick spans` shown as code (a command the assistant names reads as one,
 * never with raw backticks); everything else is escaped as text.
 */
export function withInlineCode(text: string): Html {
  const parts = text.split(/`([^`\n]+)`/);
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
