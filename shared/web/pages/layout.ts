/**
 * The page shell: a sidebar (Overview, Activity with the amber count of waiting
 * decisions, Runs, Artifacts, Schedules, Memory, Settings) and the page's main column; on a narrow
 * screen the sidebar is a bar across the top. Styles and scripts
 * come only from /assets (the CSP allows nothing inline).
 */
import { html } from 'hono/html';
import { csrfField, pendingBadge, type Html } from './ui.ts';

export type NavKey =
  | 'overview'
  | 'activity'
  | 'memory'
  | 'settings'
  | 'runs'
  | 'decision'
  | 'none'
  | 'artifacts'
  | 'schedules'
  | 'talk'
  | 'chat'
  | 'workflows'
  | 'credentials'
  | 'workspaces';

/** Who is looking at the page: their CSRF token and whether a "Log out" applies. */
export interface Visitor {
  csrf: string;
  /** True when a password is configured (so there is something to log out of). */
  canLogOut: boolean;
  /** The workspace the pages show and every workspace with its waiting decisions (when there are workspaces). */
  workspaces?: {
    current: WorkspaceLabel;
    all: (WorkspaceLabel & { pending: number })[];
    /** The page's path: the switcher comes back to it. */
    path: string;
  };
}

/** A workspace as the pages name it. */
export interface WorkspaceLabel {
  id: string;
  name: string;
}

export interface ShellOptions {
  title: string;
  nav: NavKey;
  visitor: Visitor;
  /** Waiting decisions, for the sidebar badge. */
  pending: number;
  body: Html;
  /** Extra scripts from /assets (names only). */
  scripts?: string[];
  /** Shown above the title. */
  notice?: Html | string;
}

const LINKS: { key: NavKey; href: string; text: string }[] = [
  { key: 'overview', href: '/', text: 'Overview' },
  { key: 'activity', href: '/activity', text: 'Activity' },
  { key: 'chat', href: '/chat', text: 'Chat' },
  { key: 'workflows', href: '/workflows', text: 'Workflows' },
  { key: 'runs', href: '/runs', text: 'Runs' },
  { key: 'artifacts', href: '/artifacts', text: 'Artifacts' },
  { key: 'schedules', href: '/schedules', text: 'Schedules' },
  { key: 'talk', href: '/talk', text: 'Talk' },
  { key: 'memory', href: '/memory', text: 'Memory' },
  { key: 'credentials', href: '/credentials', text: 'Credentials' },
  { key: 'settings', href: '/settings', text: 'Settings' },
];

function head(title: string, scripts: string[]): Html {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="same-origin" />
    <title>${title} · Handoff</title>
    <link rel="stylesheet" href="/assets/app.css" />
    <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
    <script src="/assets/app.js" defer></script>
    ${scripts.map((s) => html`<script src="/assets/${s}" defer></script>`)}
  </head>`;
}

/** The workspace switcher: a plain form (works without JavaScript) that remembers the choice. */
function switcher(visitor: Visitor): Html | string {
  const workspaces = visitor.workspaces;
  if (!workspaces) return '';
  return html`<form class="workspace-switcher" method="post" action="/workspace">
    ${csrfField(visitor)}<input type="hidden" name="next" value="${workspaces.path}" />
    <label for="workspace-select">Workspace</label>
    <select id="workspace-select" name="workspace">
      ${workspaces.all.map(
        (w) =>
          html`<option value="${w.name}" ${w.id === workspaces.current.id ? html`selected` : ''}>
            ${w.name}${w.pending > 0 ? ` (${w.pending} waiting)` : ''}
          </option>`,
      )}
    </select>
    <button class="button" type="submit" data-switch-button>Switch</button>
    <a class="workspace-manage" href="/workspaces">Manage workspaces</a>
  </form>`;
}

/**
 * The sidebar; the inspector swaps it in place when the count of waiting decisions changes.
 * The Activity badge counts the decisions waiting in the selected workspace, as its pages do;
 * the switcher says how many wait in each of the others.
 */
export function sidebar(nav: NavKey, visitor: Visitor, pending: number): Html {
  const workspaces = visitor.workspaces;
  const waiting = workspaces?.all.find((w) => w.id === workspaces.current.id)?.pending ?? pending;
  return html`<nav class="sidebar" id="nav" aria-label="Main">
    <div class="sidebar-inner">
      <a class="brand" href="/"><span class="brand-mark" aria-hidden="true"></span>Handoff</a>
      ${switcher(visitor)}
      <ul>
        ${LINKS.map(
          (l) =>
            html`<li>
              <a href="${l.href}" ${l.key === nav ? html`aria-current="page"` : ''}
                >${l.text}${l.key === 'activity' ? pendingBadge(waiting) : ''}</a
              >
            </li>`,
        )}
      </ul>
      ${
        visitor.canLogOut
          ? html`<form class="logout" method="post" action="/logout">
              ${csrfField(visitor)}<button class="link-button" type="submit">Log out</button>
            </form>`
          : ''
      }
    </div>
  </nav>`;
}

/** A full page with the sidebar. */
export function shell(o: ShellOptions): Html {
  return html`<!doctype html>
    <html lang="en">
      ${head(o.title, o.scripts ?? [])}
      <body>
        <div class="app">
          ${sidebar(o.nav, o.visitor, o.pending)}
          <main id="main">${o.notice ?? ''}${o.body}</main>
        </div>
      </body>
    </html>`;
}

/** A page without the sidebar: login, and decisions opened from a signed link by someone not logged in. */
export function bare(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      ${head(title, [])}
      <body class="bare">
        <main id="main">
          <p class="brand brand-bare"><span class="brand-mark" aria-hidden="true"></span>Handoff</p>
          ${body}
        </main>
      </body>
    </html>`;
}

/** A bare page with a heading and one message (errors, refused links). */
export function messagePage(title: string, message: string, back?: { href: string; text: string }): Html {
  return bare(
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      ${back ? html`<p><a href="${back.href}">${back.text}</a></p>` : ''}`,
  );
}
