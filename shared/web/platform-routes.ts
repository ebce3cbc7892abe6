/**
 * The JSON API of the platform around workflows, one definition per route (api-route.ts):
 * `/api/profile`, `/api/skills`, `/api/agents` and `/api/workspace/{export,apply}`. Thin: each
 * route parses, calls one function of shared/, and maps the result; errors become
 * `{"error": ...}` in the app. Loaded with the first request to one of them (api-modules.ts).
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { AgentContentSchema, agents, saveAgent } from '../agents/definitions.ts';
import { errorMessage, InvalidInputError } from '../errors/index.ts';
import { agentUsers, deleteAgent, deleteSkill, skillUsers } from '../library/usage.ts';
import { ProfileInputSchema, profileView, readProfile, saveProfile } from '../profile/profile.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { saveSkill, SkillContentSchema, skills } from '../skills/skills.ts';
import { lambdaSourceProblem } from '../sources/source-types.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { MAX_WORKSPACE_BYTES } from '../workspace/limits.ts';
import { defineRoute, serveRoute, type ErrorResponse } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';
import { plural } from '../text/plural.ts';

const flag = (description: string) =>
  z
    .string()
    .optional()
    .meta({ description: `${description} (\`1\` or \`true\`)` });

const SAVE_REFUSED: Record<string, ErrorResponse> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  413: 'TooLarge',
  422: 'Unprocessable',
};

export const getProfileRoute = defineRoute({
  method: 'get',
  path: '/api/profile',
  operationId: 'getProfile',
  summary: 'Your profile',
  responses: {
    200: { description: 'The profile (defaults when never saved).', schema: 'Profile' },
    401: 'Unauthorized',
  },
});

export const putProfileRoute = defineRoute({
  method: 'put',
  path: '/api/profile',
  operationId: 'putProfile',
  summary: 'Change your profile',
  description:
    'Only the fields given change. A changed time zone re-reads every schedule (on AWS: each schedule is updated).',
  content: {
    'application/json': ProfileInputSchema.meta({
      id: 'ProfileChange',
      description: 'Only the fields given change.',
    }),
  },
  responses: { 200: { description: 'Saved.', schema: 'Profile' }, ...SAVE_REFUSED },
});

/** The routes of a library of named, versioned things (skills, agents). */
function libraryRoutes(noun: 'skill' | 'agent', content: Record<string, z.ZodType>) {
  const Noun = noun === 'skill' ? 'Skill' : 'Agent';
  const name = pathParam('name', `The ${noun}'s name.`);
  return {
    list: defineRoute({
      method: 'get',
      path: `/api/${noun}s`,
      operationId: `list${Noun}s`,
      summary: `List ${noun}s (latest versions)`,
      responses: {
        200: { description: `Every ${noun}.`, schema: noun === 'skill' ? 'SkillSummaries' : 'Agents' },
        401: 'Unauthorized',
      },
    }),
    get: defineRoute({
      method: 'get',
      path: `/api/${noun}s/{name}`,
      operationId: `get${Noun}`,
      summary: `One ${noun}`,
      params: name,
      query: z.object({
        version: z.string().optional().meta({ description: 'An older version (default: the latest).' }),
      }),
      responses: {
        200: { description: `The ${noun}.`, schema: Noun },
        401: 'Unauthorized',
        404: 'NotFound',
        422: 'Unprocessable',
      },
    }),
    put: defineRoute({
      method: 'put',
      path: `/api/${noun}s/{name}`,
      operationId: `put${Noun}`,
      summary: `Save a ${noun}: a new version when it changed`,
      params: name,
      content,
      responses: {
        200: { description: 'Unchanged: the latest version already has this content.', schema: 'Saved' },
        201: { description: 'Saved as a new version.', schema: 'Saved' },
        ...SAVE_REFUSED,
      },
    }),
    delete: defineRoute({
      method: 'delete',
      path: `/api/${noun}s/{name}`,
      operationId: `delete${Noun}`,
      summary: `Delete a ${noun} and all its versions (refused while in use)`,
      params: name,
      responses: {
        204: { description: 'Deleted.' },
        401: 'Unauthorized',
        404: 'NotFound',
        422: 'Unprocessable',
      },
    }),
  };
}

export const SKILL_ROUTES = libraryRoutes('skill', {
  'text/markdown': z.string(),
  'application/json': SkillContentSchema,
});
export const AGENT_ROUTES = libraryRoutes('agent', {
  'application/json': AgentContentSchema,
  'application/yaml': AgentContentSchema,
});

export const exportRoute = defineRoute({
  method: 'get',
  path: '/api/workspace/export',
  operationId: 'exportWorkspace',
  summary: 'The workspace as workspace.yml (no secrets)',
  query: z.object({ with_learned_rules: flag('Include learned rules, not only the rules you set') }),
  responses: {
    200: { description: 'The YAML file.', schema: 'FileBody', media: 'application/yaml' },
    401: 'Unauthorized',
  },
});

export const applyRoute = defineRoute({
  method: 'post',
  path: '/api/workspace/apply',
  operationId: 'applyWorkspace',
  summary: 'Apply a workspace.yml: all or nothing',
  query: z.object({ dry_run: flag('Report the changes only; write nothing') }),
  content: { 'application/yaml': z.string().meta({ description: 'The workspace file.' }) },
  responses: {
    200: { description: 'Applied (or, on a dry run, what would change).', schema: 'ApplyResult' },
    401: 'Unauthorized',
    413: 'TooLarge',
    422: { description: 'The file has problems; nothing was written.', schema: 'Problems' },
  },
});

export const PLATFORM_ROUTES = [
  getProfileRoute,
  putProfileRoute,
  ...Object.values(SKILL_ROUTES),
  ...Object.values(AGENT_ROUTES),
  exportRoute,
  applyRoute,
];

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

function versionOf(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(v))
    throw new InvalidInputError(`version must be a positive whole number, got "${v}"`);
  return Number(v);
}

const flagOn = (value: string | undefined) => value !== undefined && value !== '0' && value !== 'false';

/** Every scheduled workflow is announced again: its schedule is read in the new time zone. */
async function rescheduleAll(deps: PlatformRouteDeps): Promise<void> {
  for (const w of await listWorkflows(deps.web.engine.store))
    if (w.trigger.schedule !== undefined)
      await deps.onWorkflowChange(w.id, 'saved', deps.web.engine.workspace);
}

/** Registers the platform API routes' handlers (behind the bearer guard of `/api/*`). */
export function registerPlatformRoutes(app: RouteSink, deps: PlatformRouteDeps): void {
  const store = () => deps.web.engine.store;

  serveRoute(app, getProfileRoute, async (c) => c.json(profileView(await readProfile(store()))));
  serveRoute(
    app,
    putProfileRoute,
    async (c) => {
      const before = await readProfile(store());
      const body = await jsonBody(c);
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw new InvalidInputError('body must be an object like {"time_zone": "Europe/Paris"}');
      const saved = await saveProfile(store(), body);
      if (saved.time_zone !== before.time_zone) await rescheduleAll(deps);
      return c.json(profileView(saved));
    },
    limit(16 * 1024),
  );

  serveRoute(app, SKILL_ROUTES.list, async (c) => {
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
  serveRoute(app, SKILL_ROUTES.get, async (c, { params: { name }, query }) => {
    const skill = await skills.get(store(), name, versionOf(query.version));
    const versions = (await skills.versions(store(), name)).map((v) => v.version);
    return c.json({
      name,
      version: skill.version,
      created_at: skill.created_at,
      body: skill.content.body,
      versions,
    });
  });
  serveRoute(
    app,
    SKILL_ROUTES.put,
    async (c, { params: { name } }) => {
      // Markdown as the body itself, or JSON {"body": "..."}.
      const json = /^application\/json\b/i.test(c.req.header('Content-Type') ?? '');
      const raw = json ? await jsonBody(c) : await c.req.text();
      const body = json ? (raw as { body?: unknown } | null)?.body : raw;
      if (typeof body !== 'string')
        throw new InvalidInputError('body must be the Markdown, or JSON {"body": "..."}');
      const { saved, created } = await saveSkill(store(), name, body);
      return c.json({ name: saved.name, version: saved.version, created }, created ? 201 : 200);
    },
    limit(64 * 1024),
  );
  serveRoute(app, SKILL_ROUTES.delete, async (c, { params: { name } }) => {
    await deleteSkill(store(), name);
    return c.body(null, 204);
  });

  serveRoute(app, AGENT_ROUTES.list, async (c) => {
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
  serveRoute(app, AGENT_ROUTES.get, async (c, { params: { name }, query }) => {
    const agent = await agents.get(store(), name, versionOf(query.version));
    const versions = (await agents.versions(store(), name)).map((v) => v.version);
    return c.json({ name, version: agent.version, created_at: agent.created_at, ...agent.content, versions });
  });
  serveRoute(
    app,
    AGENT_ROUTES.put,
    async (c, { params: { name } }) => {
      const { saved, created } = await saveAgent(store(), name, await yamlBody(c));
      return c.json({ name: saved.name, version: saved.version, created }, created ? 201 : 200);
    },
    limit(64 * 1024),
  );
  serveRoute(app, AGENT_ROUTES.delete, async (c, { params: { name } }) => {
    await deleteAgent(store(), name);
    return c.body(null, 204);
  });

  serveRoute(app, exportRoute, async (c, { query }) => {
    const { exportWorkspace, toYaml } = await import('../workspace/file.ts');
    const file = await exportWorkspace(store(), { withLearnedRules: flagOn(query.with_learned_rules) });
    return c.body(toYaml(file), 200, { 'Content-Type': 'application/yaml; charset=utf-8' });
  });
  serveRoute(
    app,
    applyRoute,
    async (c, { query }) => {
      const dryRun = flagOn(query.dry_run);
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
          {
            error: `${plural(error.problems.length, 'problem')}; nothing was applied`,
            problems: error.problems,
          },
          422,
        );
      }
    },
    limit(MAX_WORKSPACE_BYTES),
  );
}
