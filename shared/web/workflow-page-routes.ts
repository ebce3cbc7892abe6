/**
 * The Workflows pages: the list, a new workflow from YAML, each workflow's page with its
 * edit form and YAML view (every problem listed, 422, nothing saved), pause/resume,
 * rename, duplicate (saved paused) and delete (after a confirm page). Every change is
 * told to `onChange` (AWS: the workflow's EventBridge schedule follows).
 */
import type { Context } from 'hono';
import type { RouteSink } from './lazy-routes.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { liveRulesOfWorkflow } from '../memory/rules-repository.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { setPaused } from '../schedules/schedules.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { lambdaSourceProblem } from '../sources/source-types.ts';
import { deleteWorkflow, getWorkflow, listWorkflows, saveWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { admit, admitForm, type Admission } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import type { WorkflowForm } from './pages/workflow.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';
import { workflowStatuses, type WorkflowStatus } from './workflow-status.ts';

/** The rules a workflow's page lists (the newest that apply; Memory has every one). */
const RULES_SHOWN = 100;

/** The YAML reader and writer load with the first workflow page, not with every cold start. */
const yamlTools = async () => {
  // One at a time: jest's ESM loader races on modules imported concurrently.
  const { checkWorkflowText } = await import('../workflows/load.ts');
  const { stringify } = await import('yaml');
  return { checkWorkflowText, stringify };
};

/** The pages' templates load with the first one shown (a Lambda serving only the API never loads them). */
const pages = async () => {
  const workflow = await import('./pages/workflow.ts');
  const workflows = await import('./pages/workflows.ts');
  return { ...workflow, ...workflows };
};

const NOTICES: Record<string, (v: string) => string> = {
  created: (v) => `Saved the new workflow ${v}.`,
  saved: () => 'Saved. The next run uses it.',
  renamed: (v) => `Renamed to ${v}.`,
  paused: () => 'Paused: its schedule does not fire until you resume it.',
  resumed: () => 'Resumed: it runs on its schedule again.',
  duplicated: (v) =>
    `This is a copy of ${v}, saved paused so it does not run twice. Edit it, then resume it.`,
  deleted: (v) => `Deleted the workflow ${v}. Its past runs stay under Runs.`,
};

function noticeOf(c: Context): string | null {
  for (const [key, text] of Object.entries(NOTICES)) {
    const value = c.req.query(key);
    if (value !== undefined) return text(value);
  }
  return null;
}

/** A refused save's message as a list (a repository refusal joins its problems with "; "). */
function problemsOf(error: InvalidInputError): string[] {
  return error.message.split('; ').filter(Boolean);
}

/** The edit form's fields as a workflow candidate (the schema decides what is wrong with it). */
function fromForm(w: Workflow, f: Record<string, string>): unknown {
  const kind = f.trigger ?? 'manual';
  const trigger =
    kind === 'schedule'
      ? { schedule: (f.schedule ?? '').trim() }
      : kind === 'webhook'
        ? { webhook: true }
        : { manual: true };
  const typed = (f.confidence_threshold ?? '').trim();
  const n = Number(typed);
  const { confidence_threshold: _own, ...rest } = w;
  return {
    ...rest,
    name: f.name ?? '',
    instructions: f.instructions ?? '',
    trigger,
    ...(typed === '' ? {} : { confidence_threshold: Number.isFinite(n) ? n : typed }),
  };
}

function formOf(w: Workflow): WorkflowForm {
  const t = w.trigger;
  return {
    name: w.name,
    instructions: w.instructions,
    trigger: t.schedule !== undefined ? 'schedule' : t.webhook ? 'webhook' : 'manual',
    schedule: t.schedule ?? '',
    threshold: w.confidence_threshold === undefined ? '' : String(w.confidence_threshold),
  };
}

const EXAMPLE_FALLBACK = `id: my-inbox
name: My inbox
instructions: |
  Archive newsletters, file a ticket for bug reports, ask me about anything else.
trigger: { schedule: "cron(0 8 ? * MON-FRI *)" }
source: { type: imap, host: imap.example.com, port: 993, tls: true, user: me@example.com, credential: MAIL_PASSWORD }
actions:
  - { name: archive }
  - { name: file_ticket }
human_gate: { options: [archive, file_ticket, skip] }
`;

/** Registers the Workflows pages and their forms. */
export function registerWorkflowPages(
  app: RouteSink,
  web: WebDeps,
  onChange: WorkflowChangeListener,
  inLambda: boolean,
): void {
  const pendingCount = () => waitingCount(web.engine.store);
  const notFound = (c: Context, id: string) =>
    c.html(
      messagePage('Not found', `There is no workflow "${id}".`, {
        href: '/workflows',
        text: 'Back to the workflows',
      }),
      404,
    );
  const statusOf = async (workflow: Workflow): Promise<WorkflowStatus> => {
    const [all, [status]] = await Promise.all([
      listWorkflows(web.engine.store),
      workflowStatuses(web.engine, [workflow]),
    ]);
    const twin = all.find((w) => w.id !== workflow.id && w.name.trim() === workflow.name.trim());
    return { ...status!, sameNameAs: twin?.id ?? null };
  };
  const changed = (id: string, change: 'saved' | 'removed') => onChange(id, change, web.engine.workspace);

  /** Renders a workflow's page: its saved state, or a refused form with its problems. */
  const renderWorkflow = async (
    c: Context,
    admitted: Extract<Admission, { ok: true }>,
    workflow: Workflow,
    refused?: { in: 'form' | 'yaml' | 'rename'; problems: string[]; form?: WorkflowForm; yaml?: string },
  ) => {
    const [status, rules, stored, pending] = await Promise.all([
      statusOf(workflow),
      liveRulesOfWorkflow(web.engine.store, workflow.id, RULES_SHOWN),
      readStoredSettings(web.engine.store),
      pendingCount(),
    ]);
    const data = {
      status,
      rules: rules.rules,
      moreRules: rules.more,
      threshold: stored?.confidence_threshold ?? web.engine.settings.confidenceThreshold,
      form: refused?.form ?? formOf(workflow),
      yaml: refused?.yaml ?? (await yamlTools()).stringify(workflow),
      problems: refused?.problems ?? [],
      problemsIn: refused?.in ?? null,
      pending,
      notice: refused ? null : noticeOf(c),
    };
    return c.html((await pages()).workflowPage(admitted.visitor, data), refused ? 422 : 200);
  };

  /** Validates and saves a candidate; the problems when refused (nothing is saved then). */
  const trySave = async (
    candidate: string,
    name: string,
  ): Promise<{ ok: true; workflow: Workflow } | { ok: false; problems: string[] }> => {
    const { checkWorkflowText } = await yamlTools();
    const checked = checkWorkflowText(candidate, name);
    if (!checked.ok) return checked;
    const problem = inLambda ? lambdaSourceProblem(checked.workflow.source.type) : null;
    if (problem) return { ok: false, problems: [problem] };
    try {
      await saveWorkflow(web.engine.store, checked.workflow);
    } catch (error) {
      if (error instanceof InvalidInputError) return { ok: false, problems: problemsOf(error) };
      throw error;
    }
    await changed(checked.workflow.id, 'saved');
    return { ok: true, workflow: checked.workflow };
  };

  const load = (id: string) => getWorkflow(web.engine.store, id).catch(() => null);
  const to = (id: string, key: string, value = '1') =>
    `/workflows/${encodeURIComponent(id)}?${key}=${encodeURIComponent(value)}`;

  app.get('/workflows', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [workflows, pending] = await Promise.all([listWorkflows(web.engine.store), pendingCount()]);
    const statuses = await workflowStatuses(web.engine, workflows);
    return c.html(
      (await pages()).workflowsPage(admitted.visitor, { statuses, pending, notice: noticeOf(c) }),
    );
  });

  app.get('/workflows/new', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const { readTemplate } = await import('../workflows/templates.ts');
    const yaml = await readTemplate('inbox-triage').catch(() => EXAMPLE_FALLBACK);
    return c.html(
      (await pages()).newWorkflowPage(admitted.visitor, {
        yaml,
        problems: [],
        pending: await pendingCount(),
      }),
    );
  });

  app.post('/workflows', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const yaml = admitted.form.yaml ?? '';
    const refuse = async (problems: string[]) =>
      c.html(
        (await pages()).newWorkflowPage(admitted.visitor, { yaml, problems, pending: await pendingCount() }),
        422,
      );
    const { checkWorkflowText } = await yamlTools();
    const checked = checkWorkflowText(yaml, 'workflow.yaml');
    if (!checked.ok) return refuse(checked.problems);
    if (await load(checked.workflow.id))
      return refuse([`id: a workflow "${checked.workflow.id}" already exists; give this one another id`]);
    const saved = await trySave(yaml, 'workflow.yaml');
    if (!saved.ok) return refuse(saved.problems);
    return c.redirect(to(saved.workflow.id, 'created', saved.workflow.name), 303);
  });

  app.get('/workflows/:id', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    return renderWorkflow(c, admitted, workflow);
  });

  app.post('/workflows/:id', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    const f = admitted.form;
    const saved = await trySave(JSON.stringify(fromForm(workflow, f)), 'workflow.json');
    if (!saved.ok) {
      const form: WorkflowForm = {
        name: f.name ?? '',
        instructions: f.instructions ?? '',
        trigger: f.trigger === 'schedule' || f.trigger === 'webhook' ? f.trigger : 'manual',
        schedule: f.schedule ?? '',
        threshold: f.confidence_threshold ?? '',
      };
      return renderWorkflow(c, admitted, workflow, { in: 'form', problems: saved.problems, form });
    }
    return c.redirect(to(workflow.id, 'saved'), 303);
  });

  app.post('/workflows/:id/yaml', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    const yaml = admitted.form.yaml ?? '';
    const { checkWorkflowText } = await yamlTools();
    const checked = checkWorkflowText(yaml, 'workflow.yaml');
    const problems = !checked.ok
      ? checked.problems
      : checked.workflow.id !== workflow.id
        ? [`id: stays "${workflow.id}" here (to make another workflow, use Duplicate)`]
        : null;
    const saved = problems ? null : await trySave(yaml, 'workflow.yaml');
    if (problems || !saved?.ok)
      return renderWorkflow(c, admitted, workflow, {
        in: 'yaml',
        problems: problems ?? (saved && !saved.ok ? saved.problems : []),
        yaml,
      });
    return c.redirect(to(workflow.id, 'saved'), 303);
  });

  app.post('/workflows/:id/rename', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    const name = (admitted.form.name ?? '').trim();
    if (!name)
      return renderWorkflow(c, admitted, workflow, { in: 'rename', problems: ['name: must not be empty'] });
    const saved = await trySave(JSON.stringify({ ...workflow, name }), 'workflow.json');
    if (!saved.ok) return renderWorkflow(c, admitted, workflow, { in: 'rename', problems: saved.problems });
    return c.redirect(to(workflow.id, 'renamed', name), 303);
  });

  for (const op of ['pause', 'resume'] as const)
    app.post(`/workflows/:id/${op}`, async (c) => {
      const admitted = await admitForm(c, web);
      if (!admitted.ok) return admitted.response;
      const id = c.req.param('id') ?? '';
      try {
        await setPaused(web.engine.store, id, op === 'pause');
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        return c.html(
          messagePage('Not found', error.message, { href: '/workflows', text: 'Back to the workflows' }),
          404,
        );
      }
      await changed(id, 'saved');
      return c.redirect(to(id, op === 'pause' ? 'paused' : 'resumed'), 303);
    });

  app.post('/workflows/:id/duplicate', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    const taken = new Set((await listWorkflows(web.engine.store)).map((w) => w.id));
    const base = `${workflow.id.slice(0, 55)}-copy`;
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
    const copy: Workflow = { ...workflow, id, name: `${workflow.name} (copy)` };
    await saveWorkflow(web.engine.store, copy);
    // Saved paused: the copy does not fire beside the original until the person says so.
    if (copy.trigger.schedule !== undefined) await setPaused(web.engine.store, id, true);
    await changed(id, 'saved');
    return c.redirect(to(id, 'duplicated', workflow.name), 303);
  });

  app.get('/workflows/:id/delete', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    const [status, pending] = await Promise.all([statusOf(workflow), pendingCount()]);
    return c.html((await pages()).deleteWorkflowPage(admitted.visitor, status, pending));
  });

  app.post('/workflows/:id/delete', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await load(c.req.param('id') ?? '');
    if (!workflow) return notFound(c, c.req.param('id') ?? '');
    await deleteWorkflow(web.engine.store, workflow.id);
    // Its pause state goes with it: a workflow made later under this id starts unpaused.
    if (await web.engine.store.get('schedules', workflow.id))
      await web.engine.store.delete('schedules', workflow.id);
    await changed(workflow.id, 'removed');
    return c.redirect(`/workflows?deleted=${encodeURIComponent(workflow.name)}`, 303);
  });
}
