/**
 * Activity: `GET /activity` (the waiting questions by run and sender domain, filtered and
 * paged), `POST /activity/accept` (a group's suggestions: the first POST says what will
 * happen, the confirmed one does it) and `POST /activity/answer` (the checked questions,
 * one action, "just this once" if ticked). The answering is the shared code every "answer
 * many" surface uses (runs/answer-many.ts); a bulk answer returns to the page it came from,
 * with what it did and the rules it taught (bulk-notice.ts).
 */
import type { Context } from 'hono';
import { InvalidInputError } from '../errors/index.ts';
import {
  MAX_ANSWERS,
  acceptableInBulk,
  answerEach,
  suggestedAnswers,
  type AnswerInput,
  type AnswerResult,
} from '../runs/answer-many.ts';
import { latestSettled } from '../runs/latest-answers.ts';
import { NOTHING_ONCE } from '../runs/learned.ts';
import { DecisionSchema, type Decision } from '../records/runs.ts';
import { getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { isReturnPath, parseActivityQuery, readActivity } from './activity-list.ts';
import { LEARNED_SHOWN, readBulkNotice, standingRuleIds } from './bulk-notice.ts';
import { admit, admitForm } from './guard.ts';
import type { AcceptPlan } from './pages/activity-confirm.ts';
import { messagePage, type WorkspaceLabel } from './pages/layout.ts';
import { answeredFrom } from './recorded-answer.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

/** Activity's markup loads with its first page, not with every cold start (the API bundle's budget). */
const activityPages = () => import('./pages/activity.ts');
const confirmPages = () => import('./pages/activity-confirm.ts');

/** What a bulk answer did, carried on its redirect back to Activity or the run page (bulk-notice.ts words it). */
interface BulkOutcome {
  done: number;
  how: string;
  refused: number;
  left: number;
  /** Answers given "just this once" (they taught nothing). */
  once: number;
  /** The rules the answers taught that stand, newest first; the notice names the first few, each with its Undo. */
  learned: string[];
}

function backTo(path: string | undefined, outcome: BulkOutcome): string {
  const back = isReturnPath(path) ? path : '/activity';
  const params = new URLSearchParams({
    done: String(outcome.done),
    how: outcome.how,
    refused: String(outcome.refused),
    left: String(outcome.left),
    once: String(outcome.once),
    learned: String(outcome.learned.length),
  });
  if (outcome.learned.length > 0)
    params.set('learned_ids', outcome.learned.slice(0, LEARNED_SHOWN).join(','));
  return `${back}${back.includes('?') ? '&' : '?'}${params.toString()}`;
}

async function tally(
  store: Store,
  results: readonly AnswerResult[],
  how: string,
  notTaken: number,
  left: number,
): Promise<BulkOutcome> {
  const taught = results.flatMap((r) => (r.ok && r.learned_rule ? [r.learned_rule.id] : []));
  return {
    done: results.filter((r) => r.ok).length,
    how,
    refused: notTaken + results.filter((r) => !r.ok).length,
    left,
    once: results.filter((r) => r.ok && r.learned === NOTHING_ONCE).length,
    learned: await standingRuleIds(store, taught),
  };
}

function refused(c: Context, message: string): Response | Promise<Response> {
  return c.html(messagePage('Not answered', message, { href: '/activity', text: 'Back to Activity' }), 422);
}

/** The request's workspace as the pages label it (null: the app has no workspaces). */
function workspaceOf(web: WebDeps): WorkspaceLabel | null {
  return web.platform && web.workspace ? { id: web.workspace.id, name: web.workspace.name } : null;
}

/** Registers Activity's page and its two bulk answers (each in the request's workspace only). */
export function registerActivityRoutes(app: RouteSink, web: WebDeps): void {
  app.get('/activity', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const query = parseActivityQuery(c.req.query());
    const [recent, list, recorded, bulkNotice] = await Promise.all([
      latestSettled(web.engine.store, 10),
      readActivity(web.engine.store, query),
      answeredFrom(c, web),
      readBulkNotice(web.engine.store, c.req.url),
    ]);
    const { activityPage } = await activityPages();
    return c.html(
      activityPage(admitted.visitor, {
        list,
        workspace: workspaceOf(web),
        recent,
        recorded,
        bulkNotice,
      }),
    );
  });

  // A group's suggestions (a run, one sender domain of it, or the questions `ids` names of either), in the request's workspace.
  app.post('/activity/accept', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const { form } = admitted;
    const run = form.run?.trim();
    if (!run) return refused(c, 'Say which run: the form names its run. Nothing was changed.');
    const sender = form.sender?.trim() || undefined;
    const back = isReturnPath(form.back) ? form.back : '/activity';
    let pick;
    try {
      pick = await suggestedAnswers(web.engine, { run, from: sender });
    } catch (error) {
      if (error instanceof InvalidInputError) return refused(c, `${error.message}. Nothing was changed.`);
      throw error;
    }
    const named = new Set((form.ids ?? '').split(',').filter(Boolean));
    if (form.confirm !== '1') {
      // A group of a page names its questions: the plan is those of them still waiting.
      const inGroup = (d: Decision) => named.size === 0 || named.has(d.id);
      const accepted = pick.accepted.filter(inGroup);
      const plan: AcceptPlan = {
        workspace: workspaceOf(web),
        run,
        sender: sender ?? null,
        accept: accepted.slice(0, MAX_ANSWERS),
        more: Math.max(0, accepted.length - MAX_ANSWERS),
        leftForYou: pick.leftForYou.filter(inGroup),
        back,
      };
      const pending = await waitingCount(web.engine.store);
      const { acceptConfirmPage } = await confirmPages();
      return c.html(acceptConfirmPage(admitted.visitor, plan, pending));
    }
    // Exactly what the confirm step named, and of it only what may still be accepted.
    const once = form.once === '1'; // "Just this once": the answers teach nothing
    const answers = pick.answers
      .filter((a) => named.has(a.id))
      .slice(0, MAX_ANSWERS)
      .map((a) => (once ? { ...a, once } : a));
    const results = await answerEach(web.engine, answers);
    const notTaken = named.size - answers.length;
    const outcome = await tally(
      web.engine.store,
      results,
      'approve_suggested',
      notTaken,
      pick.leftForYou.length,
    );
    return c.redirect(backTo(back, outcome), 303);
  });

  // The checked questions of the request's workspace (read by id), one action for all.
  app.post('/activity/answer', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const { form } = admitted;
    const action = form.action?.trim() ?? '';
    if (!/^[a-z][a-z0-9_]{0,60}$/.test(action))
      return refused(c, 'Choose what to do with the selected questions. Nothing was changed.');
    const picked = Object.keys(form)
      .filter((k) => k.startsWith('pick:') && form[k])
      .map((k) => k.slice('pick:'.length));
    if (picked.length > MAX_ANSWERS)
      return refused(c, `Select at most ${MAX_ANSWERS} questions at once. Nothing was changed.`);
    // A checkbox names its workspace: one of another workspace is not answered here.
    const prefix = `${workspaceOf(web)?.id ?? ''}:`;
    const ids = [...new Set(picked.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)))];
    const read = await getRecords(web.engine.store, 'decisions', DecisionSchema, ids);
    const chosen = read.filter((d): d is Decision => d?.status === 'pending');
    const notWaiting = picked.length - chosen.length;
    // Accepting in bulk never takes an irreversible suggestion: that is answered on its own.
    const taken = action === 'approve_suggested' ? chosen.filter(acceptableInBulk) : chosen;
    const left = chosen.length - taken.length;
    const once = form.once === '1';
    const answers: AnswerInput[] = taken.map((d) => ({ id: d.id, action, ...(once ? { once } : {}) }));
    const results = await answerEach(web.engine, answers);
    const outcome = await tally(web.engine.store, results, action, notWaiting, left);
    return c.redirect(backTo(form.back, outcome), 303);
  });
}
