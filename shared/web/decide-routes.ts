/**
 * `/decide/:id`: opening shows the decision; only a POST decides (link previews
 * open links). A signed link opens its own decision only and is spent by the POST
 * that answers. Without a link, a logged-in (or local) visitor may answer with the
 * page's CSRF token.
 */
import type { Context, Hono } from 'hono';
import { AlreadyDecidedError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import {
  explainToken,
  tokenSpend,
  verifyDecisionToken,
  type TokenCheck,
  type TokenClaims,
} from '../links/decision-token.ts';
import type { LinkKey } from '../links/link-key.ts';
import { allowedActions, recordAnswer } from '../runs/decide.ts';
import {
  firstWaiting,
  getDecision,
  pendingOfRun,
  waitingCount,
  readDecisionAndRun,
  type DecisionRead,
} from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import type { Decision } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { admit, admitForm, formFields } from './guard.ts';
import type { DecisionAccess } from './pages/decision.ts';
/** The decision page's markup loads with the first decision page, not with every cold start. */
const decisionPages = () => import('./pages/decision.ts');
import { messagePage } from './pages/layout.ts';
import { loadMessage } from './pages/message.ts';
import type { WebDeps } from './web-deps.ts';
import { answeredFrom } from './recorded-answer.ts';
import { learnedFrom } from '../runs/learned.ts';
import { decisionPath } from '../links/decision-links.ts';
import { editsFromFields } from '../runs/edited-words.ts';
import { isReturnPath } from './activity-list.ts';

export interface DecideRouteDeps {
  readonly engine: EngineDeps;
  linkKey: LinkKey;
  /** When true a signed link is the only way in (a public deployment without a login). */
  requireToken: boolean;
}

type Access =
  { ok: true; claims: TokenClaims; read: DecisionRead } | { ok: false; status: 403; message: string };

const ONLY_BY_LINK = 'This page opens from the link in your notification. Nothing was changed.';

/**
 * Checks a signed link: its signature, then reads the decision (with its run's questions
 * still waiting, in one keyed read where the store has one). A link is spent only by the
 * answer it gives, in the answer's own write: a decision still waiting has no spent link,
 * so the spent record is read only for one that no longer waits (or is gone).
 */
async function tokenAccess(deps: DecideRouteDeps, decisionId: string, token: string): Promise<Access> {
  const check: TokenCheck = verifyDecisionToken(
    await deps.linkKey.get(),
    token,
    decisionId,
    new Date(),
    deps.engine.workspace,
  );
  if (!check.ok) return { ok: false, status: 403, message: explainToken(check.reason) };
  const store = deps.engine.store;
  const read = await readDecisionAndRun(store, decisionId);
  if (read.decision?.status !== 'pending' && (await store.get('tokens', check.claims.n)))
    return { ok: false, status: 403, message: explainToken('spent') };
  return { ok: true, claims: check.claims, read };
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
    let read: DecisionRead | undefined;
    if (token) {
      const granted = await tokenAccess(deps, id, token);
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
    let read: DecisionRead | undefined;
    let claims: TokenClaims | undefined;
    if (!token) {
      if (linkOnly(web)) return refused(c, ONLY_BY_LINK);
      const admitted = await admitForm(c, web);
      if (!admitted.ok) return admitted.response;
    } else {
      const granted = await tokenAccess(deps, id, token);
      if (!granted.ok) return refused(c, granted.message);
      read = granted.read;
      claims = granted.claims;
    }
    try {
      read ??= await readDecisionAndRun(web.engine.store, id);
      const decision = read.decision ?? (await getDecision(web.engine.store, id));
      if (decision.status !== 'pending')
        throw new AlreadyDecidedError(
          `This decision was already ${decision.status}. Nothing was changed.`,
          decision,
        );
      if (!allowedActions(decision).includes(action))
        throw new InvalidInputError(`"${action}" is not an option here. Nothing was changed.`);
      // The link is spent by the answer it gives, in the same durable write.
      const spend = claims ? [tokenSpend(claims)] : [];
      const once = form.once === '1' || form.once === 'on';
      const scope = form.scope === 'workflow' ? ({ scope: 'workflow' } as const) : {};
      const edits = editsFromFields(form, decision, action);
      const result = await recordAnswer(web.engine, id, action, note.trim() || null, read, spend, {
        once,
        ...scope,
        edits,
      });
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
        const learned = learnedFrom(result.answered, result.learned).words;
        const { recordedPage } = await decisionPages();
        return c.html(recordedPage(result.answered, result.run_status, next, learned));
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
  // Back to Activity as it was (its filters and page), or to the run's page, the answer's notice added.
  if (isReturnPath(next)) return `${next}${next.includes('?') ? '&' : '?'}${done}`;
  const [following] = await firstWaiting(web.engine.store, 1);
  if (following) return `/decide/${encodeURIComponent(following.id)}?${done}`;
  return `/runs/${encodeURIComponent(decided.run_id)}?${done}`;
}

/** The decision page; `read` is what the link's check already read (the decision, its run's waiting questions). */
async function showDecision(
  c: Context,
  web: WebDeps,
  id: string,
  access: DecisionAccess,
  read?: DecisionRead,
): Promise<Response> {
  const store = web.engine.store;
  const decision = read?.decision ?? (await getDecision(store, id));
  // A link opens one run's questions: it is told about those only (read with the decision
  // where the store can, else one keyed read; never the whole list). What the page shows of
  // the workflow was kept on the decision when it was asked; a Maildir message is read in
  // full through its workflow's folder, and an older decision reads it too.
  const view = decision.workflow_view?.source === 'maildir' ? undefined : decision.workflow_view;
  const [waiting, workflow] = await Promise.all([
    access.kind !== 'token' ? everyRunWaiting(store, decision) : runWaiting(store, decision, read),
    view ? null : getWorkflow(store, decision.workflow_id).catch(() => null),
  ]);
  const others = waiting.others;
  const recorded = access.kind === 'session' ? await answeredFrom(c, web) : null;
  const ownThreshold = view ? view.confidence_threshold : workflow?.confidence_threshold;
  // The stored setting only counts where the workflow has no threshold of its own.
  const stored = ownThreshold == null ? await readStoredSettings(store) : null;
  const threshold = ownThreshold ?? stored?.confidence_threshold ?? web.engine.settings.confidenceThreshold;
  const screen = {
    decision,
    workflowName: view?.name ?? workflow?.name ?? decision.workflow_id,
    message: await loadMessage(workflow, decision),
    threshold,
    after: waiting.after,
    nextId: others[0]?.id ?? null,
    recorded,
  };
  const { decisionPage } = await decisionPages();
  return c.html(decisionPage(screen, access, waiting.count));
}

/**
 * What waits in the workspace, for a logged-in visitor: counted from the index, and the next
 * question (the first in the index's order that is not this one) from one page of two.
 */
async function everyRunWaiting(store: Store, decision: Decision): Promise<Waiting> {
  const [count, first] = await Promise.all([waitingCount(store), firstWaiting(store, 2)]);
  const after = Math.max(0, count - (decision.status === 'pending' ? 1 : 0));
  return { count, after, others: first.filter((d) => d.id !== decision.id) };
}

/** What waits in the decision's run, for a signed link: read with the decision, or by the run's key. */
async function runWaiting(
  store: Store,
  decision: Decision,
  read: DecisionRead | undefined,
): Promise<Waiting> {
  const ofRun = read?.waiting
    ? withWaiting(decision, read.waiting)
    : await pendingOfRun(store, decision.run_id, decision.id);
  const others = ofRun.filter((d) => d.id !== decision.id);
  return { count: ofRun.length, after: others.length, others };
}

/** Questions waiting: how many (the badge), how many besides this one, and the next few of them. */
interface Waiting {
  count: number;
  after: number;
  others: Decision[];
}

/** The run's questions waiting, oldest first: the others read with `decision`, and it when it waits. */
function withWaiting(decision: Decision, others: readonly Decision[]): Decision[] {
  if (decision.status !== 'pending') return [...others];
  return [decision, ...others].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
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
