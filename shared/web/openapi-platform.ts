/**
 * The OpenAPI paths and schemas of the platform routes (platform-routes.ts): profile,
 * skills, agents and the workspace file. Merged into the document by openapi.ts.
 */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const nameParam = (description: string): Json => ({
  name: 'name',
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$' },
});
const versionQuery: Json = {
  name: 'version',
  in: 'query',
  required: false,
  description: 'An older version (default: the latest).',
  schema: { type: 'integer', minimum: 1 },
};
const flagQuery = (name: string, description: string): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', enum: ['1', 'true'] },
});
const clock = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' };

export const PLATFORM_SCHEMAS: Record<string, Json> = {
  Profile: {
    type: 'object',
    required: ['name', 'time_zone', 'notify_channel', 'quiet_hours', 'updated_at'],
    properties: {
      name: { type: ['string', 'null'] },
      time_zone: {
        type: 'string',
        description: 'IANA name; schedules are read in it.',
        examples: ['Europe/Paris'],
      },
      notify_channel: { type: ['string', 'null'], enum: ['console', 'slack', 'sns', null] },
      quiet_hours: {
        type: ['object', 'null'],
        description: 'Questions raised then are notified when the window ends; never answered by it.',
        required: ['start', 'end'],
        properties: { start: clock, end: clock },
      },
      updated_at: { type: ['string', 'null'] },
    },
  },
  ProfileChange: {
    type: 'object',
    description: 'Only the fields given change.',
    properties: {
      name: { type: ['string', 'null'] },
      time_zone: { type: 'string' },
      notify_channel: { type: ['string', 'null'], enum: ['console', 'slack', 'sns', null] },
      quiet_hours: { type: ['object', 'null'], properties: { start: clock, end: clock } },
    },
    additionalProperties: false,
  },
  Saved: {
    type: 'object',
    required: ['name', 'version', 'created'],
    properties: {
      name: { type: 'string' },
      version: { type: 'integer' },
      created: {
        type: 'boolean',
        description: 'False: the same content as the latest version, nothing saved.',
      },
    },
  },
  SkillSummary: {
    type: 'object',
    required: ['name', 'version', 'created_at', 'used_by'],
    properties: {
      name: { type: 'string' },
      version: { type: 'integer' },
      created_at: { type: 'string' },
      used_by: { type: 'array', items: { type: 'string' } },
    },
  },
  Skill: {
    type: 'object',
    required: ['name', 'version', 'created_at', 'body', 'versions'],
    properties: {
      name: { type: 'string' },
      version: { type: 'integer' },
      created_at: { type: 'string' },
      body: { type: 'string', description: 'Markdown.' },
      versions: { type: 'array', items: { type: 'integer' } },
    },
  },
  Agent: {
    type: 'object',
    required: ['name', 'version', 'description', 'instructions', 'model'],
    properties: {
      name: { type: 'string' },
      version: { type: 'integer' },
      created_at: { type: 'string' },
      description: { type: 'string' },
      instructions: { type: 'string' },
      model: { type: 'string', enum: ['primary', 'fallback'] },
      tools: { type: 'array', items: { type: 'string' } },
      actions: { type: 'array', items: { type: 'string' } },
      skills: { type: 'array', items: { type: 'string' } },
      used_by: { type: 'array', items: { type: 'string' } },
      versions: { type: 'array', items: { type: 'integer' } },
    },
  },
  ApplyResult: {
    type: 'object',
    required: ['applied', 'changes'],
    properties: {
      applied: { type: 'boolean', description: 'False on a dry run.' },
      changes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kind', 'name', 'change'],
          properties: {
            kind: {
              type: 'string',
              enum: ['profile', 'settings', 'integration', 'skill', 'agent', 'workflow', 'rule'],
            },
            name: { type: 'string' },
            change: { type: 'string', enum: ['add', 'update'] },
            fields: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
  ApplyProblems: {
    type: 'object',
    required: ['error', 'problems'],
    properties: {
      error: { type: 'string' },
      problems: {
        type: 'array',
        items: { type: 'string' },
        description: 'One line per problem: `workspace.yml: <path>: <what is wrong>`.',
      },
    },
  },
};

const library = (noun: 'skill' | 'agent', body: Json, one: string): Record<string, Json> => {
  const Noun = noun === 'skill' ? 'Skill' : 'Agent';
  return {
    [`/api/${noun}s`]: {
      get: {
        operationId: `list${Noun}s`,
        summary: `List ${noun}s (latest versions)`,
        responses: {
          '200': ok(`Every ${noun}.`, {
            type: 'array',
            items: ref(noun === 'skill' ? 'SkillSummary' : 'Agent'),
          }),
          '401': error('Unauthorized'),
        },
      },
    },
    [`/api/${noun}s/{name}`]: {
      parameters: [nameParam(`The ${noun}'s name.`)],
      get: {
        operationId: `get${Noun}`,
        summary: `One ${noun}`,
        parameters: [versionQuery],
        responses: {
          '200': ok(`The ${noun}.`, ref(one)),
          '401': error('Unauthorized'),
          '404': error('NotFound'),
        },
      },
      put: {
        operationId: `put${Noun}`,
        summary: `Save a ${noun}: a new version when it changed`,
        requestBody: { required: true, content: body },
        responses: {
          '200': ok('Unchanged: the latest version already has this content.', ref('Saved')),
          '201': ok('Saved as a new version.', ref('Saved')),
          '400': error('BadRequest'),
          '401': error('Unauthorized'),
          '413': error('TooLarge'),
          '422': error('Unprocessable'),
        },
      },
      delete: {
        operationId: `delete${Noun}`,
        summary: `Delete a ${noun} and all its versions (refused while in use)`,
        responses: {
          '204': { description: 'Deleted.' },
          '401': error('Unauthorized'),
          '404': error('NotFound'),
          '422': error('Unprocessable'),
        },
      },
    },
  };
};

export const PLATFORM_PATHS: Record<string, Json> = {
  '/api/profile': {
    get: {
      operationId: 'getProfile',
      summary: 'Your profile',
      responses: {
        '200': ok('The profile (defaults when never saved).', ref('Profile')),
        '401': error('Unauthorized'),
      },
    },
    put: {
      operationId: 'putProfile',
      summary: 'Change your profile',
      description: 'A changed time zone re-reads every schedule (on AWS: each schedule is updated).',
      requestBody: { required: true, content: json(ref('ProfileChange')) },
      responses: {
        '200': ok('Saved.', ref('Profile')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '413': error('TooLarge'),
        '422': error('Unprocessable'),
      },
    },
  },
  ...library(
    'skill',
    {
      'text/markdown': { schema: { type: 'string' } },
      'application/json': {
        schema: { type: 'object', required: ['body'], properties: { body: { type: 'string' } } },
      },
    },
    'Skill',
  ),
  ...library(
    'agent',
    {
      'application/json': { schema: { type: 'object' } },
      'application/yaml': { schema: { type: 'object' } },
    },
    'Agent',
  ),
  '/api/workspace/export': {
    get: {
      operationId: 'exportWorkspace',
      summary: 'The workspace as workspace.yml (no secrets)',
      parameters: [flagQuery('with_learned_rules', 'Include learned rules, not only the rules you set.')],
      responses: {
        '200': {
          description: 'The YAML file.',
          content: { 'application/yaml': { schema: { type: 'string' } } },
        },
        '401': error('Unauthorized'),
      },
    },
  },
  '/api/workspace/apply': {
    post: {
      operationId: 'applyWorkspace',
      summary: 'Apply a workspace.yml: all or nothing',
      parameters: [flagQuery('dry_run', 'Report the changes only; write nothing.')],
      requestBody: { required: true, content: { 'application/yaml': { schema: { type: 'string' } } } },
      responses: {
        '200': ok('Applied (or, on a dry run, what would change).', ref('ApplyResult')),
        '401': error('Unauthorized'),
        '413': error('TooLarge'),
        '422': ok('The file has problems; nothing was written.', ref('ApplyProblems')),
      },
    },
  },
};
