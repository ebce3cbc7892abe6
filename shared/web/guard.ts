/**
 * Who may open a page. Locally without a password every visitor gets a session
 * (the server listens on loopback only). With `HANDOFF_UI_PASSWORD` set, a page
 * needs a logged-in session. A public deployment without a password opens only
 * signed decision links. Every POST also needs the session's CSRF token. Before any
 * of this, host-guard.ts refuses a request for another host name or a change sent
 * from another site.
 */
import type { Context } from 'hono';
import { messagePage, type Visitor } from './pages/layout.ts';
import type { Session } from './session.ts';
import type { WebDeps } from './web-deps.ts';
import { waitingEverywhere } from './waiting-everywhere.ts';

export type Admission =
  { ok: true; visitor: Visitor; session: Session } | { ok: false; response: Response | Promise<Response> };

export type FormAdmission =
  | { ok: true; visitor: Visitor; session: Session; form: Record<string, string> }
  | { ok: false; response: Response | Promise<Response> };

const CLOSED =
  'This deployment opens only the decision links sent in notifications. Set HANDOFF_UI_PASSWORD to open the web app.';

/** Admits a page view (`page`) or a page's live event stream (`stream`), or says why not. */
export async function admit(c: Context, web: WebDeps, mode: 'page' | 'stream' = 'page'): Promise<Admission> {
  const { sessions } = web;
  let session = await sessions.read(c);
  if (sessions.passwordSet) {
    if (!session?.auth) {
      if (mode === 'stream') return { ok: false, response: c.text('log in first', 401) };
      const next = `${c.req.path}${new URL(c.req.url).search}`;
      return { ok: false, response: c.redirect(`/login?next=${encodeURIComponent(next)}`, 303) };
    }
  } else if (web.requireToken) {
    return { ok: false, response: c.html(messagePage('Closed', CLOSED), 403) };
  } else {
    session ??= await sessions.issue(c, true);
  }
  return { ok: true, session, visitor: await visitorOf(web, session, c.req.path) };
}

/** Admits a form POST: a page session and its CSRF token, or 403 and nothing is changed. */
export async function admitForm(c: Context, web: WebDeps): Promise<FormAdmission> {
  const { sessions } = web;
  const session = await sessions.read(c);
  const refused = (message: string) => ({
    ok: false as const,
    response: c.html(messagePage('Refused', message, { href: '/', text: 'Back to Handoff' }), 403),
  });
  if (!sessions.passwordSet && web.requireToken) return refused(CLOSED);
  if (!session || (sessions.passwordSet && !session.auth))
    return refused('Your session has ended. Open the page again (and log in) before sending the form.');
  const form = await formFields(c);
  if (!(await sessions.csrfValid(session, form._csrf)))
    return refused('This form is missing its security token, or it is stale. Nothing was changed.');
  return { ok: true, session, form, visitor: await visitorOf(web, session, c.req.path) };
}

/**
 * True when an API call comes from one of our pages: a session that may open pages (logged
 * in, when a password is set) and its CSRF token in `X-CSRF-Token`. The Talk page calls the
 * API this way; the cookie is SameSite=Strict and the token cannot be read by other sites.
 */
export async function pageApiCall(c: Context, web: WebDeps): Promise<boolean> {
  const { sessions } = web;
  if (!sessions.passwordSet && web.requireToken) return false;
  const session = await sessions.read(c);
  if (!session || (sessions.passwordSet && !session.auth)) return false;
  return sessions.csrfValid(session, c.req.header('X-CSRF-Token'));
}

/** The string fields of a urlencoded or multipart body (files ignored). */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string') fields[key] = value;
  return fields;
}

async function visitorOf(web: WebDeps, session: Session, path: string): Promise<Visitor> {
  const visitor: Visitor = { csrf: await web.sessions.csrfFor(session), canLogOut: web.sessions.passwordSet };
  const { platform, workspace } = web;
  if (platform && workspace) {
    const all = (await waitingEverywhere(web)).map((w) => ({ ...w.workspace!, pending: w.waiting }));
    visitor.workspaces = { current: { id: workspace.id, name: workspace.name }, all, path };
  }
  return visitor;
}
