import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { AlreadyDecidedError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { explainToken, spendToken, verifyDecisionToken, type TokenCheck } from '../links/decision-token.ts';
import type { LinkKey } from '../links/link-key.ts';
import { allowedActions, decide } from '../runs/decide.ts';
import { getDecision, listPending } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import type { Decision } from '../runs/records.ts';

export interface DecideRouteDeps {
  engine: EngineDeps;
  linkKey: LinkKey;
  /** When true a signed link is the only way in (a public deployment without a login). */
  requireToken: boolean;
}

type Access = { ok: true; token: string | null } | { ok: false; status: 403; message: string };

async function access(deps: DecideRouteDeps, decisionId: string, token: string | undefined): Promise<Access> {
  if (!token) {
    return deps.requireToken
      ? {
          ok: false,
          status: 403,
          message: 'This page opens from the link in your notification. Nothing was changed.',
        }
      : { ok: true, token: null };
  }
  const check: TokenCheck = verifyDecisionToken(await deps.linkKey.get(), token, decisionId);
  if (!check.ok) return { ok: false, status: 403, message: explainToken(check.reason) };
  if (await deps.engine.store.get('tokens', check.claims.n))
    return { ok: false, status: 403, message: explainToken('spent') };
  return { ok: true, token };
}

/** `/decide/:id`: opening shows the decision; only a POST decides (link previews open links). */
export function registerDecideRoutes(app: Hono, deps: DecideRouteDeps): void {
  app.get('/decide/:id', async (c) => {
    const id = c.req.param('id');
    const granted = await access(deps, id, c.req.query('token'));
    if (!granted.ok) return c.html(page('Link not valid', html`<p>${granted.message}</p>`), granted.status);
    const decision = await getDecision(deps.engine.store, id);
    const after = (await listPending(deps.engine.store)).filter((d) => d.id !== id).length;
    return c.html(page(decision.subject, decisionView(decision, granted.token, after)));
  });

  app.post('/decide/:id', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' && form.token ? form.token : undefined;
    const action = typeof form.action === 'string' ? form.action : '';
    const note = typeof form.note === 'string' ? form.note : '';
    const granted = await access(deps, id, token);
    if (!granted.ok) return c.html(page('Link not valid', html`<p>${granted.message}</p>`), granted.status);
    try {
      const decision = await getDecision(deps.engine.store, id);
      if (decision.status !== 'pending')
        throw new AlreadyDecidedError(
          `This decision was already ${decision.status}. Nothing was changed.`,
          decision,
        );
      if (!allowedActions(decision).includes(action))
        throw new InvalidInputError(`"${action}" is not an option here. Nothing was changed.`);
      if (token) {
        const check = verifyDecisionToken(await deps.linkKey.get(), token, id);
        if (!check.ok || !(await spendToken(deps.engine.store, check.claims)))
          return c.html(page('Link not valid', html`<p>${explainToken('spent')}</p>`), 403);
      }
      const result = await decide(deps.engine, id, action, note.trim() || null);
      return c.html(page('Answer recorded', recordedView(result.action, result.run_status)));
    } catch (error) {
      return errorPage(c, error);
    }
  });
}

function errorPage(c: Context, error: unknown): Response | Promise<Response> {
  if (error instanceof NotFoundError) return c.html(page('Not found', html`<p>${error.message}</p>`), 404);
  if (error instanceof AlreadyDecidedError)
    return c.html(page('Already answered', html`<p>${error.message}</p>`), 409);
  if (error instanceof InvalidInputError)
    return c.html(page('Not an option', html`<p>${error.message}</p>`), 422);
  throw error;
}

function decisionView(decision: Decision, token: string | null, after: number) {
  const options = [...new Set([...decision.options, 'approve_suggested'])];
  return html`<p><strong>${decision.sender}</strong> — ${decision.subject}</p>
    <blockquote>${decision.snippet}</blockquote>
    <p>
      The agent suggests <strong>${decision.suggested_action}</strong> (confidence
      ${decision.confidence.toFixed(2)}):
    </p>
    <blockquote>${decision.reasoning}</blockquote>
    <form method="post" action="/decide/${decision.id}">
      ${token ? html`<input type="hidden" name="token" value="${token}" />` : ''}
      <label>Note (why — it teaches the next run) <input name="note" /></label>
      ${options.map((o) => html`<button type="submit" name="action" value="${o}">${o.replace(/_/g, ' ')}</button> `)}
    </form>
    ${after > 0 ? html`<p>and ${after} more after this</p>` : ''}`;
}

function recordedView(action: string, runStatus: string) {
  return html`<p>Recorded <strong>${action}</strong>. The run is ${runStatus}.</p>`;
}

function page(title: string, body: ReturnType<typeof html>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — Handoff</title>
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}
