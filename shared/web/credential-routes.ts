/**
 * The Credentials page of the request's workspace: set or replace a value (write-only),
 * test it with the doctor's checks, delete it after a confirm page.
 */
import type { Context } from 'hono';
import type { RouteSink } from './lazy-routes.ts';
import { CREDENTIAL_NAME } from '../credentials/credentials.ts';
import { Secret } from '../credentials/secret.ts';
import type { CheckResult } from '../doctor/check.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { credentialsOf } from '../workflows/readiness.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { pauseWhenDeleted, resumeWhenSet } from '../schedules/resume-when-set.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';
import { admit, admitForm, type Admission } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import type { NeededRow } from './pages/credentials.ts';
import type { WebDeps } from './web-deps.ts';

/** The page templates load with the first page shown. */
const pages = () => import('./pages/credentials.ts');

const NAME_RULE = 'a name is capitals, digits and _, starting with a letter, like MAIL_PASSWORD';

/** Registers `/credentials` and its forms. */
export function registerCredentialPages(
  app: RouteSink,
  web: WebDeps,
  onChange: WorkflowChangeListener,
): void {
  const users = async (name: string) =>
    (await listWorkflows(web.engine.store))
      .filter((w) => credentialsOf(w).includes(name))
      .map((w) => ({ id: w.id, name: w.name }));

  const render = async (
    c: Context,
    admitted: Extract<Admission, { ok: true }>,
    extra: {
      error?: { name: string; message: string };
      tested?: { name: string; results: CheckResult[] };
    } = {},
  ) => {
    const [workflows, list, pending] = await Promise.all([
      listWorkflows(web.engine.store),
      web.engine.credentials.list(),
      waitingCount(web.engine.store),
    ]);
    const byName = new Map(list.map((c) => [c.name, c]));
    const needed = new Map<string, NeededRow>();
    for (const w of workflows)
      for (const name of credentialsOf(w)) {
        const row = needed.get(name) ?? { name, workflows: [], info: byName.get(name) ?? null };
        row.workflows.push({ id: w.id, name: w.name });
        needed.set(name, row);
      }
    const rows = [...needed.values()].sort(
      (a, b) => Number(a.info !== null) - Number(b.info !== null) || a.name.localeCompare(b.name),
    );
    const [set, deleted, resumed, paused] = ['set', 'deleted', 'resumed', 'paused'].map((k) =>
      c.req.query(k),
    );
    const notice = set
      ? `Saved ${set}. Its value is not shown again.${resumed ? ` Resumed ${resumed.split(',').join(', ')}: nothing ${resumed.includes(',') ? 'they need' : 'it needs'} is missing now.` : ''}`
      : deleted
        ? `Deleted ${deleted}.${paused ? ` Paused ${paused.split(',').join(', ')} until it is set again.` : ''}`
        : null;
    const data = {
      needed: rows,
      others: list.filter((info) => !needed.has(info.name)),
      pending,
      notice: extra.tested ? null : notice,
      error: extra.error ?? null,
      tested: extra.tested ?? null,
    };
    return c.html((await pages()).credentialsPage(admitted.visitor, data), extra.error ? 422 : 200);
  };

  app.get('/credentials', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    return render(c, admitted);
  });

  app.post('/credentials', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const name = (admitted.form.name ?? '').trim();
    const value = admitted.form.value ?? '';
    if (!CREDENTIAL_NAME.test(name))
      return render(c, admitted, {
        error: { name, message: `"${name}" is not a credential name: ${NAME_RULE}` },
      });
    if (value === '') return render(c, admitted, { error: { name, message: `${name} needs a value` } });
    await web.engine.credentials.set(name, new Secret(value));
    const { resumed } = await resumeWhenSet({
      store: web.engine.store,
      credentials: web.engine.credentials,
      workspace: web.engine.workspace,
      onWorkflowChange: onChange,
    });
    const ids = resumed.map((w) => w.workflow_id).join(',');
    return c.redirect(
      `/credentials?set=${encodeURIComponent(name)}${ids ? `&resumed=${encodeURIComponent(ids)}` : ''}`,
      303,
    );
  });

  app.post('/credentials/:name/test', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const name = c.req.param('name') ?? '';
    if (!CREDENTIAL_NAME.test(name))
      return c.html(messagePage('Not found', `There is no credential ${name}.`), 404);
    // The doctor (sources, integrations) loads with the first test, not with every cold start.
    const { checkCredential } = await import('../doctor/credential-checks.ts');
    const results = await checkCredential(web.engine.store, web.engine.credentials, name);
    return render(c, admitted, { tested: { name, results } });
  });

  app.get('/credentials/:name/delete', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const name = c.req.param('name') ?? '';
    if (!CREDENTIAL_NAME.test(name) || !(await web.engine.credentials.names()).has(name))
      return c.html(
        messagePage('Not found', `There is no credential ${name}.`, {
          href: '/credentials',
          text: 'Back to the credentials',
        }),
        404,
      );
    const pending = await waitingCount(web.engine.store);
    return c.html((await pages()).deleteCredentialPage(admitted.visitor, name, await users(name), pending));
  });

  app.post('/credentials/:name/delete', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const name = c.req.param('name') ?? '';
    if (!CREDENTIAL_NAME.test(name) || !(await web.engine.credentials.names()).has(name))
      return c.redirect(`/credentials?deleted=${encodeURIComponent(name)}`, 303); // already gone: same outcome
    await web.engine.credentials.delete(name);
    const paused = await pauseWhenDeleted(
      { store: web.engine.store, workspace: web.engine.workspace, onWorkflowChange: onChange },
      name,
    );
    const ids = paused.map((w) => w.workflow_id).join(',');
    return c.redirect(
      `/credentials?deleted=${encodeURIComponent(name)}${ids ? `&paused=${encodeURIComponent(ids)}` : ''}`,
      303,
    );
  });
}
