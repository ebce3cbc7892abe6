/** Memory (list and delete rules), Settings (stored in the store), login and logout. */
import type { Context } from 'hono';
import { learningFailures } from '../runs/learning.ts';
import { InvalidInputError, NotFoundError, UndoExpiredError } from '../errors/index.ts';
import { acceptProposal, dismissProposal, openProposals } from '../runs/domain-proposals.ts';
import { revokeRule, rulesPage } from '../memory/rules-repository.ts';
import { restorableUntil, restoreRule } from '../memory/rule-undo.ts';
import { firesOf, NEVER_FIRED } from '../memory/rule-fires.ts';
import { RuleSchema, type Rule } from '../records/rule.ts';
import { getRecord } from '../store/records.ts';
import { messagePage } from './pages/layout.ts';
import { safeBack } from './pages/recorded-notice.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { getSettings, saveSettings, SettingsInputSchema } from '../settings/settings.ts';
import { ProfileInputSchema, readProfile, saveProfile } from '../profile/profile.ts';
import { listWorkflows, saveWorkflow } from '../workflows/repository.ts';
import { slackConfigFrom } from '../notify/slack-api.ts';
import { slackSource } from '../notify/slack-source.ts';
import type { Store } from '../store/store.ts';
import { admit, admitForm, formFields } from './guard.ts';
import { loginPage } from './pages/login.ts';
import { deleteConfirmPage, memoryPage, passesFilter, ruleText } from './pages/memory.ts';
import { settingsPage } from './pages/settings.ts';
import { safeNext } from './session.ts';
import type { RouteSink } from './lazy-routes.ts';
import { applySettings, settingDefaults, type WebDeps } from './web-deps.ts';

async function renderSettings(
  c: Context,
  web: WebDeps,
  errors: Record<string, string>,
  status: 200 | 422,
  profileErrors: Record<string, string> = {},
) {
  const admitted = await admit(c, web);
  if (!admitted.ok) return admitted.response;
  const defaults = settingDefaults(web);
  const [settings, workflows, pending, profile] = await Promise.all([
    getSettings(web.engine.store, defaults),
    listWorkflows(web.engine.store),
    waitingCount(web.engine.store),
    readProfile(web.engine.store),
  ]);
  const data = {
    current: settings,
    defaults,
    stored: settings.stored,
    workflows,
    pending,
    errors,
    profile,
    profileErrors,
  };
  const applied = Number(c.req.query('applied') ?? 0);
  const notice = c.req.query('saved')
    ? applied > 0
      ? `Saved. ${applied === 1 ? 'One workflow' : `${applied} workflows`} now use${applied === 1 ? 's' : ''} this threshold from the next run.`
      : 'Saved. The threshold applies from the next run.'
    : c.req.query('profile')
      ? 'Saved your profile.'
      : null;
  return c.html(settingsPage(admitted.visitor, data, status === 200 ? notice : null), status);
}

/** Removes every workflow's own threshold (the Settings one applies then); how many changed. */
async function clearWorkflowThresholds(store: Store): Promise<number> {
  const own = (await listWorkflows(store)).filter((w) => w.confidence_threshold !== undefined);
  for (const { confidence_threshold: _dropped, ...workflow } of own) await saveWorkflow(store, workflow);
  return own.length;
}

const MEMORY_NOTICES: Record<string, string> = {
  accepted: 'Accepted: it is now a rule you set, applied from the next run.',
  dismissed: 'Dismissed: no rule, and it will not be proposed again.',
  undecided: 'That proposal was already decided; nothing changed.',
};

/** Rules Memory shows at a time, newest first (the next page by its cursor). */
const RULES_PER_PAGE = 100;

/** The time now, as the engine tells it (a test's clock), else the system's. */
const nowOf = (web: WebDeps) => web.engine.clock?.() ?? new Date();

/** The rule `id`, or undefined when there is none. */
const ruleOf = (store: Store, id: string) => getRecord(store, 'rules', RuleSchema, id);

/**
 * The rules deleted a moment ago that may still be restored: those among the page read, and
 * the one just deleted (`?deleted=ID`) wherever it is.
 */
async function restorable(store: Store, page: readonly Rule[], justDeleted: string | undefined, now: Date) {
  const within = (r: Rule) => r.deleted_at !== null && restorableUntil(r)! >= now;
  const found = page.filter(within);
  if (justDeleted && !found.some((r) => r.id === justDeleted)) {
    const rule = await ruleOf(store, justDeleted);
    if (rule && within(rule)) found.unshift(rule);
  }
  return found;
}

/** Registers Memory, Settings, login and logout. */
export function registerManageRoutes(app: RouteSink, web: WebDeps): void {
  app.get('/memory', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [rules, workflows, pending, proposals, unlearned] = await Promise.all([
      rulesPage(web.engine.store, RULES_PER_PAGE, c.req.query('cursor') ?? null),
      listWorkflows(web.engine.store),
      waitingCount(web.engine.store),
      openProposals(web.engine.store),
      learningFailures(web.engine),
    ]);
    const names = new Map(workflows.map((w) => [w.id, w.name]));
    const now = nowOf(web);
    const shown = rules.rules.filter((r) => r.deleted_at === null);
    const [fires, deleted] = await Promise.all([
      firesOf(
        web.engine.store,
        shown.map((r) => r.id),
      ),
      restorable(web.engine.store, rules.rules, c.req.query('deleted'), now),
    ]);
    const filter = {
      q: c.req.query('q') ?? '',
      action: c.req.query('action')?.trim() ?? '',
      scope: ['source', 'workflow', 'every'].includes(c.req.query('scope') ?? '')
        ? c.req.query('scope')!
        : '',
    };
    const restored = c.req.query('restored');
    const back = restored ? shown.find((r) => r.id === restored) : undefined;
    const notice = back
      ? `Restored the rule: ${ruleText(back)}. It fires again.`
      : (MEMORY_NOTICES[Object.keys(c.req.query()).find((k) => k in MEMORY_NOTICES) ?? ''] ?? null);
    return c.html(
      memoryPage(
        admitted.visitor,
        shown.filter((r) => passesFilter(r, filter)),
        names,
        pending,
        notice,
        proposals,
        unlearned,
        rules.next_cursor,
        filter,
        { fires, deleted, now },
      ),
    );
  });

  // Deleting asks first: the rule in words, Delete or Cancel (a page of its own, no script needed).
  app.get('/memory/:id/delete', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const rule = await ruleOf(web.engine.store, c.req.param('id') ?? '');
    const back = { href: '/memory', text: 'Back to Memory' };
    if (!rule || rule.deleted_at !== null)
      return c.html(
        messagePage('No such rule', 'That rule does not exist, or was deleted already.', back),
        404,
      );
    const [workflows, pending, fires] = await Promise.all([
      listWorkflows(web.engine.store),
      waitingCount(web.engine.store),
      firesOf(web.engine.store, [rule.id]),
    ]);
    const names = new Map(workflows.map((w) => [w.id, w.name]));
    const fired = fires.get(rule.id) ?? NEVER_FIRED;
    return c.html(deleteConfirmPage(admitted.visitor, rule, names, pending, fired, nowOf(web)));
  });

  app.post('/memory/proposals/:id/:choice{accept|dismiss}', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const id = c.req.param('id') ?? '';
    const accept = c.req.param('choice') === 'accept';
    try {
      await (accept ? acceptProposal(web.engine.store, id) : dismissProposal(web.engine.store, id));
    } catch (error) {
      if (error instanceof InvalidInputError || error instanceof NotFoundError)
        return c.redirect('/memory?undecided=1', 303); // already decided or gone: nothing changed
      throw error;
    }
    return c.redirect(accept ? '/memory?accepted=1' : '/memory?dismissed=1', 303);
  });

  app.post('/memory/:id/delete', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const id = c.req.param('id') ?? '';
    try {
      await revokeRule(web.engine.store, web.engine.mirror, id, nowOf(web));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // already gone: the outcome is the same
      return c.redirect('/memory', 303);
    }
    return c.redirect(`/memory?deleted=${encodeURIComponent(id)}`, 303);
  });

  // Undo of a deletion, while it may be undone (memory/rule-undo.ts, UNDO_WINDOW_MS).
  app.post('/memory/:id/restore', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const id = c.req.param('id') ?? '';
    const back = { href: '/memory', text: 'Back to Memory' };
    try {
      await restoreRule(web.engine.store, web.engine.mirror, id, nowOf(web));
    } catch (error) {
      if (error instanceof UndoExpiredError)
        return c.html(messagePage('Too late to undo', error.message, back), 410);
      if (error instanceof NotFoundError)
        return c.html(messagePage('No such rule', error.message, back), 404);
      throw error;
    }
    return c.redirect(`/memory?restored=${encodeURIComponent(id)}#${encodeURIComponent(id)}`, 303);
  });

  // Undo beside an answer: revokes the rule that answer taught, that rule alone.
  app.post('/rules/:id/undo', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    try {
      await revokeRule(web.engine.store, web.engine.mirror, c.req.param('id') ?? '', nowOf(web));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // already gone: the outcome is the same
    }
    const back = safeBack(admitted.form.back);
    return c.redirect(`${back}${back.includes('?') ? '&' : '?'}undone=1`, 303);
  });

  app.get('/settings', (c) => renderSettings(c, web, {}, 200));

  app.post('/settings', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const f = admitted.form;
    const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());
    const parsed = SettingsInputSchema.safeParse({
      confidence_threshold: blank(f.confidence_threshold),
      notify_channel: blank(f.notify_channel),
      ui_base_url: blank(f.ui_base_url),
    });
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
      return renderSettings(c, web, errors, 422);
    }
    // Slack with no token or channel would fail every notice: refuse it now, in one line.
    if (parsed.data.notify_channel === 'slack') {
      try {
        slackConfigFrom(await slackSource(web.engine.credentials));
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        const why =
          'Slack needs a bot token and a channel: set SLACK_BOT_TOKEN and SLACK_CHANNEL on the Credentials page first';
        return renderSettings(c, web, { notify_channel: why }, 422);
      }
    }
    applySettings(web, await saveSettings(web.engine.store, parsed.data));
    // "Apply to every workflow": each workflow's own threshold goes, so this one is in force.
    const cleared =
      f.apply_to_workflows === 'on' && parsed.data.confidence_threshold !== null
        ? await clearWorkflowThresholds(web.engine.store)
        : 0;
    return c.redirect(cleared > 0 ? `/settings?saved=1&applied=${cleared}` : '/settings?saved=1', 303);
  });

  app.post('/settings/profile', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const f = admitted.form;
    const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());
    const [start, end] = [blank(f.quiet_start), blank(f.quiet_end)];
    const input = {
      name: blank(f.name),
      ...(blank(f.time_zone) ? { time_zone: blank(f.time_zone)! } : {}),
      notify_channel: blank(f.notify_channel),
      quiet_hours: start || end ? { start: start ?? '', end: end ?? '' } : null,
    };
    const parsed = ProfileInputSchema.safeParse(input);
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) errors[String(issue.path[0])] ??= issue.message;
      return renderSettings(c, web, {}, 422, errors);
    }
    await saveProfile(web.engine.store, parsed.data);
    return c.redirect('/settings?profile=1#profile', 303);
  });

  app.get('/login', async (c) => {
    const next = safeNext(c.req.query('next'), '/');
    if (!web.sessions.passwordSet) return c.redirect(next, 303);
    const session = (await web.sessions.read(c)) ?? (await web.sessions.issue(c, false));
    if (session.auth) return c.redirect(next, 303);
    return c.html(loginPage(await web.sessions.csrfFor(session), next, null));
  });

  app.post('/login', async (c) => {
    if (!web.sessions.passwordSet) return c.redirect('/', 303);
    const form = await formFields(c);
    const next = safeNext(form.next, '/');
    const session = await web.sessions.read(c);
    if (!session || !(await web.sessions.csrfValid(session, form._csrf))) {
      const current = session ?? (await web.sessions.issue(c, false));
      const problem = 'The form was stale; please try again.';
      return c.html(loginPage(await web.sessions.csrfFor(current), next, problem), 403);
    }
    const verdict = web.sessions.checkPassword(form.password);
    if (verdict !== 'ok') {
      const problem = verdict === 'throttled' ? 'Too many attempts; wait a minute.' : 'Wrong password.';
      return c.html(
        loginPage(await web.sessions.csrfFor(session), next, problem),
        verdict === 'throttled' ? 429 : 401,
      );
    }
    await web.sessions.issue(c, true); // a new session id: nothing from before the login carries over
    return c.redirect(next, 303);
  });

  app.post('/logout', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    web.sessions.clear(c);
    return c.redirect(web.sessions.passwordSet ? '/login' : '/', 303);
  });
}
