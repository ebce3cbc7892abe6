/**
 * The JSON API of the platform around workflows: `/api/profile`, `/api/skills`,
 * `/api/agents` and `/api/workspace/{export,apply}`. Thin: each route parses, calls one
 * function of shared/, and maps the result; errors become `{"error": ...}` in the app.
 */
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { agents, saveAgent } from '../agents/definitions.ts';
import { errorMessage, InvalidInputError } from '../errors/index.ts';
import { agentUsers, deleteAgent, deleteSkill, skillUsers } from '../library/usage.ts';
import { profileView, readProfile, saveProfile } from '../profile/profile.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { saveSkill, skills } from '../skills/skills.ts';
import { lambdaSourceProblem } from '../sources/source-types.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { MAX_WORKSPACE_BYTES } from '../workspace/limits.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

export interface PlatformRouteDeps {
  /** `web.engine`: the request's workspace. */
  web: { readonly engine: EngineDeps };
  /** Told of each workflow whose schedule must be read again (AWS: schedule sync). */
  onWorkflowChange: WorkflowChangeListener;
  /** Served by a Lambda function: a workflow whose source needs local folders is refused. */
  inLambda?: boolean;
}

const limit = (bytes: number) =>
  bodyLimit({
    maxSize: bytes,
    onError: () => {
      throw new HTTPException(413, { message: `request body larger than ${bytes / 1024} KiB` });
    },
  });

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text()) as unknown;
  } catch {
    throw new HTTPException(400, { message: 'body must be JSON' });
  }
}

/** The body as YAML or JSON (JSON is YAML). */
async function yamlBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  // The YAML parser loads with the first agent or workspace file sent, not with every cold start.
  const { parse } = await import('yaml');
  try {
    return parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new HTTPException(400, {
      message: `body: not valid YAML or JSON: ${errorMessage(error).split('\n')[0]}`,
    });
  }
}

function versionQuery(c: Context): number | undefined {
  const v = c.req.query('version');
  if (v === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(v))
    throw new InvalidInputError(`version must be a positive whole number, got "${v}"`);
  return Number(v);
}

const flag = (value: string | undefined) => value !== undefined && value !== '0' && value !== 'false';

/** Every scheduled workflow is announced again: its schedule is read in the new time zone. */
async function rescheduleAll(deps: PlatformRouteDeps): Promise<void> {
  for (const w of await listWorkflows(deps.web.engine.store))
    if (w.trigger.schedule !== undefined)
      await deps.onWorkflowChange(w.id, 'saved', deps.web.engine.workspace);
}

/** Registers the platform API routes (after the bearer guard of `/api/*`). */
export function registerPlatformRoutes(app: Hono, deps: PlatformRouteDeps): void {
  const store = () => deps.web.engine.store;

  app.get('/api/profile', async (c) => c.json(profileView(await readProfile(store()))));
  app.put('/api/profile', limit(16 * 1024), async (c) => {
    const before = await readProfile(store());
    const body = await jsonBody(c);
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new InvalidInputError('body must be an object like {"time_zone": "Europe/Paris"}');
    const saved = await saveProfile(store(), body);
    if (saved.time_zone !== before.time_zone) await rescheduleAll(deps);
    return c.json(profileView(saved));
  });

  app.get('/api/skills', async (c) => {
    const list = [];
    for (const s of await skills.listLatest(store()))
      list.push({
        name: s.name,
        version: s.version,
        created_at: s.created_at,
        used_by: await skillUsers(store(), s.name),
      });
    return c.json(list);
  });
  app.get('/api/skills/:name', async (c) => {
    const name = c.req.param('name');
    const skill = await skills.get(store(), name, versionQuery(c));
    const versions = (await skills.versions(store(), name)).map((v) => v.version);
    return c.json({
      name,
      version: skill.version,
      created_at: skill.created_at,
      body: skill.content.body,
      versions,
    });
  });
  app.put('/api/skills/:name', limit(64 * 1024), async (c) => {
    // Markdown as the body itself, or JSON {"body": "..."}.
    const json = /^application\/json\b/i.test(c.req.header('Content-Type') ?? '');
    const raw = json ? await jsonBody(c) : await c.req.text();
    const body = json ? (raw as { body?: unknown } | null)?.body : raw;
    if (typeof body !== 'string')
      throw new InvalidInputError('body must be the Markdown, or JSON {"body": "..."}');
    const { saved, created } = await saveSkill(store(), c.req.param('name'), body);
    return c.json({ name: saved.name, version: saved.version, created }, created ? 201 : 200);
  });
  app.delete('/api/skills/:name', async (c) => {
    await deleteSkill(store(), c.req.param('name'));
    return c.body(null, 204);
  });

  app.get('/api/agents', async (c) => {
    const list = [];
    for (const a of await agents.listLatest(store()))
      list.push({
        name: a.name,
        version: a.version,
        created_at: a.created_at,
        ...a.content,
        used_by: await agentUsers(store(), a.name),
      });
    return c.json(list);
  });
  app.get('/api/agents/:name', async (c) => {
    const name = c.req.param('name');
    const agent = await agents.get(store(), name, versionQuery(c));
    const versions = (await agents.versions(store(), name)).map((v) => v.version);
    return c.json({ name, version: agent.version, created_at: agent.created_at, ...agent.content, versions });
  });
  app.put('/api/agents/:name', limit(64 * 1024), async (c) => {
    const { saved, created } = await saveAgent(store(), c.req.param('name'), await yamlBody(c));
    return c.json({ name: saved.name, version: saved.version, created }, created ? 201 : 200);
  });
  app.delete('/api/agents/:name', async (c) => {
    await deleteAgent(store(), c.req.param('name'));
    return c.body(null, 204);
  });

  app.get('/api/workspace/export', async (c) => {
    const { exportWorkspace, toYaml } = await import('../workspace/file.ts');
    const file = await exportWorkspace(store(), {
      withLearnedRules: flag(c.req.query('with_learned_rules')),
    });
    return c.body(toYaml(file), 200, { 'Content-Type': 'application/yaml; charset=utf-8' });
  });
  app.post('/api/workspace/apply', limit(MAX_WORKSPACE_BYTES), async (c) => {
    const dryRun = flag(c.req.query('dry_run'));
    const { applyWorkspace, WorkspaceFileError } = await import('../workspace/apply.ts');
    try {
      const result = await applyWorkspace(store(), await c.req.text(), 'workspace.yml', {
        dryRun,
        ...(deps.inLambda ? { workflowProblem: (w) => lambdaSourceProblem(w.source.type) } : {}),
      });
      if (result.applied) {
        if (result.timeZoneChanged) await rescheduleAll(deps);
        else
          for (const id of result.workflows)
            await deps.onWorkflowChange(id, 'saved', deps.web.engine.workspace);
      }
      return c.json({ applied: result.applied, changes: result.changes });
    } catch (error) {
      if (!(error instanceof WorkspaceFileError)) throw error;
      return c.json(
        { error: `${error.problems.length} problem(s); nothing was applied`, problems: error.problems },
        422,
      );
    }
  });
}
