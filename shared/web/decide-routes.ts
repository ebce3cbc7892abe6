/**
 * `/decide/:id`: opening shows the decision; only a POST decides (link previews
 * open links). A signed link opens its own decision only and is spent by the POST
 * that answers. Without a link, a logged-in (or local) visitor may answer with the
 * page's CSRF token.
 */
import type { Context, Hono } from 'hono';
import { AlreadyDecidedError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { explainToken, tokenSpend, verifyDecisionToken, type TokenCheck } from '../links/decision-token.ts';
import type { LinkKey } from '../links/link-key.ts';
import { allowedActions, recordAnswer } from '../runs/decide.ts';
import { getDecision, listPending, pendingOfRun } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { DecisionSchema, type Decision } from '../records/runs.ts';
import {
  readStoredSettings,
  SETTINGS_ID,
  StoredSettingsSchema,
  type StoredSettings,
} from '../settings/settings.ts';
import { parseRecord } from '../store/records.ts';
import { getEach, type Write } from '../store/store.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { admit, admitForm, formFields } from './guard.ts';
import { decisionPage, recordedPage, type DecisionAccess } from './pages/decision.ts';
import { messagePage } from './pages/layout.ts';
import { loadMessage } from './pages/message.ts';
import type { WebDeps } from './web-deps.ts';
import { decisionPath } from '../links/decision-links.ts';

export interface DecideRouteDeps {
  readonly engine: EngineDeps;
  linkKey: LinkKey;
  /** When true a signed link is the only way in (a public deployment without a login). */
  requireToken: boolean;
}

/** What a granted link read with its check: the decision (and, asked for, the stored settings). */
type Read = { decision: Decision | undefined; settings: StoredSettings | null };
type Access = { ok: true; token: string | null; read: Read } | { ok: false; status: 403; message: string };

const ONLY_BY_LINK = 'This page opens from the link in your notification. Nothing was changed.';

/**
 * Checks a signed link: its signature, then (with the decision, and the settings when
 * `withSettings`, in one batched read) whether it was spent.
 */
async function tokenAccess(
  deps: DecideRouteDeps,
  decisionId: string,
  token: string,
  withSettings = false,
): Promise<Access> {
  const check: TokenCheck = verifyDecisionToken(
    await deps.linkKey.get(),
    token,
    decisionId,
    new Date(),
    deps.engine.workspace,
  );
  if (!check.ok) return { ok: false, status: 403, message: explainToken(check.reason) };
  const [spent, decision, settings] = await getEach(deps.engine.store, [
    { collection: 'tokens', id: check.claims.n },
    { collection: 'decisions', id: decisionId },
    ...(withSettings ? [{ collection: 'settings' as const, id: SETTINGS_ID }] : []),
  ]);
  if (spent) return { ok: false, status: 403, message: explainToken('spent') };
  return {
    ok: true,
    token,
    read: {
      decision: decision && parseRecord(DecisionSchema, 'decisions', decision),
      settings: settings ? parseRecord(StoredSettingsSchema, 'settings', settings) : null,
    },
  };
}

/** True when this deployment opens decisions only from signed links. */
function linkOnly(web: WebDeps): boolean {
  return web.requireToken && !web.sessions.passwordSet;
}

function refused(c: Context, message: string): Response | Promise<Response> {
  return c.html(messagePage('Link not valid', message), 403);
}

/** Registers GET and POST `/decide/:id`. */
export function registerDecideRoutes(app: Hono, web: WebDeps): void {
  const deps: DecideRouteDeps = web;

  app.get('/decide/:id', async (c) => {
    const id = c.req.param('id');
    const token = c.req.query('token');
    let access: DecisionAccess;
    let read: Read | undefined;
    if (token) {
      const granted = await tokenAccess(deps, id, token, true);
      if (!granted.ok) return refused(c, granted.message);
      access = { kind: 'token', token };
      read = granted.read;
    } else {
      if (linkOnly(web)) return refused(c, ONLY_BY_LINK);
      const admitted = await admit(c, web);
      if (!admitted.ok) return admitted.response;
      access = { kind: 'session', visitor: admitted.visitor };
    }
    try {
      return await showDecision(c, web, id, access, read);
    } catch (error) {
      return errorPage(c, error);
    }
  });

  app.post('/decide/:id', async (c) => {
    const id = c.req.param('id');
    const form = await formFields(c);
    const token = form.token || undefined;
    const action = form.action ?? '';
    const note = form.note ?? '';
    let read: Decision | undefined;
    if (!token) {
      if (linkOnly(web)) return refused(c, ONLY_BY_LINK);
      const admitted = await admitForm(c, web);
      if (!admitted.ok) return admitted.response;
    } else {
      const granted = await tokenAccess(deps, id, token);
      if (!granted.ok) return refused(c, granted.message);
      read = granted.read.decision;
    }
    try {
      const decision = read ?? (await getDecision(web.engine.store, id));
      if (decision.status !== 'pending')
        throw new AlreadyDecidedError(
          `This decision was already ${decision.status}. Nothing was changed.`,
          decision,
        );
      if (!allowedActions(decision).includes(action))
        throw new InvalidInputError(`"${action}" is not an option here. Nothing was changed.`);
      // The link is spent by the answer it gives, in the same durable write.
      let spend: Write[] = [];
      if (token) {
        const check = verifyDecisionToken(
          await deps.linkKey.get(),
          token,
          id,
          new Date(),
          web.engine.workspace,
        );
        if (!check.ok) return refused(c, explainToken('spent'));
        spend = [tokenSpend(check.claims)];
      }
      const result = await recordAnswer(web.engine, id, action, note.trim() || null, decision, spend);
      if (token) {
        // The link's holder answers the run's other questions too: hand them the next one's own link.
        const [following] = result.waiting ?? (await pendingOfRun(web.engine.store, decision.run_id, id));
        const next = following
          ? decisionPath(
              await deps.linkKey.get(),
              following.id,
              new Date(following.expires_at),
              web.engine.workspace,
            )
          : null;
        return c.html(recordedPage(result.answered, result.run_status, next));
      }
      return c.redirect(await afterAnswer(web, decision, form.next), 303);
    } catch (error) {
      return errorPage(c, error);
    }
  });
}

/** Where a logged-in visitor goes after answering: back to Activity, the next question, or the run. */
async function afterAnswer(web: WebDeps, decided: Decision, next: string | undefined): Promise<string> {
  const done = `answered=${encodeURIComponent(decided.id)}`;
  if (next === '/activity') return `/activity?${done}`;
  const following = (await listPending(web.engine.store))[0];
  if (following) return `/decide/${encodeURIComponent(following.id)}?${done}`;
  return `/runs/${encodeURIComponent(decided.run_id)}?${done}`;
}

/** The decision page; `read` is what the link's check already read (the decision, the settings). */
async function showDecision(
  c: Context,
  web: WebDeps,
  id: string,
  access: DecisionAccess,
  read?: Read,
): Promise<Response> {
  const store = web.engine.store;
  const decision = read?.decision ?? (await getDecision(store, id));
  // A link opens one run's questions: it is told about those only (one keyed read, not the whole list).
  // What the page shows of the workflow was kept on the decision when it was asked; a Maildir
  // message is read in full through its workflow's folder, and an older decision reads it too.
  const view = decision.workflow_view?.source === 'maildir' ? undefined : decision.workflow_view;
  const [pending, stored, workflow] = await Promise.all([
    access.kind === 'token' ? pendingOfRun(store, decision.run_id, id) : listPending(store),
    read ? read.settings : readStoredSettings(store),
    view ? null : getWorkflow(store, decision.workflow_id).catch(() => null),
  ]);
  const others = pending.filter((d) => d.id !== id);
  const answeredId = c.req.query('answered');
  const recorded = answeredId ? await getDecision(store, answeredId).catch(() => null) : null;
  const ownThreshold = view ? view.confidence_threshold : workflow?.confidence_threshold;
  const threshold = ownThreshold ?? stored?.confidence_threshold ?? web.engine.settings.confidenceThreshold;
  const screen = {
    decision,
    workflowName: view?.name ?? workflow?.name ?? decision.workflow_id,
    message: await loadMessage(workflow, decision),
    threshold,
    after: others.length,
    nextId: others[0]?.id ?? null,
    recorded: recorded?.status === 'answered' ? recorded : null,
  };
  return c.html(decisionPage(screen, access, pending.length));
}

function errorPage(c: Context, error: unknown): Response | Promise<Response> {
  const back = { href: '/activity', text: 'See what is still waiting' };
  if (error instanceof NotFoundError) return c.html(messagePage('Not found', error.message, back), 404);
  if (error instanceof AlreadyDecidedError)
    return c.html(messagePage('Already answered', error.message, back), 409);
  if (error instanceof InvalidInputError)
    return c.html(messagePage('Not an option', error.message, back), 422);
  throw error;
}
