/**
 * The OpenAPI paths and schemas of artifacts and schedules (`/api/artifacts*`,
 * `/api/schedules*`), merged into the document by openapi.ts.
 */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const ok = (description: string, schema: Json): Json => ({
  description,
  content: { 'application/json': { schema } },
});
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const pathParam = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});
const nullable = (type: string): Json => ({ type: [type, 'null'] });

const ARTIFACT_FIELDS: Json = {
  id: { type: 'string', description: '`<run id>.<kind>-<hash>`; the digest and report: `<run id>.<kind>`.' },
  kind: { type: 'string', enum: ['draft', 'digest', 'ticket', 'report'] },
  title: { type: 'string' },
  content_type: {
    type: 'string',
    enum: ['text/plain; charset=utf-8', 'text/markdown; charset=utf-8', 'message/rfc822', 'application/json'],
  },
  pointer: { ...nullable('string'), description: 'Where the thing lives too (a file, a mailbox, a ticket).' },
  size: { type: 'integer', description: 'Bytes of the content.' },
  created_at: { type: 'string', format: 'date-time' },
  workflow_id: { type: 'string' },
  run_id: { type: 'string' },
  item_id: nullable('string'),
  decision_id: { ...nullable('string'), description: 'The decision a person answered, when one did.' },
};
const ARTIFACT_REQUIRED = Object.keys(ARTIFACT_FIELDS);

export const OUTPUT_SCHEMAS: Record<string, Json> = {
  ArtifactSummary: {
    type: 'object',
    required: [...ARTIFACT_REQUIRED, 'has_body'],
    properties: { ...ARTIFACT_FIELDS, has_body: { type: 'boolean' } },
  },
  Artifact: {
    type: 'object',
    required: [...ARTIFACT_REQUIRED, 'body'],
    properties: {
      ...ARTIFACT_FIELDS,
      body: { ...nullable('string'), description: 'The content; null when too large to keep a copy.' },
    },
  },
  Schedule: {
    type: 'object',
    required: ['workflow_id', 'name', 'schedule', 'time_zone', 'paused', 'changed_at', 'next'],
    properties: {
      workflow_id: { type: 'string' },
      name: { type: 'string' },
      schedule: { type: 'string', examples: ['cron(0 8 ? * MON-FRI *)'] },
      time_zone: { type: 'string', description: "The profile's IANA time zone the schedule is read in." },
      paused: { type: 'boolean' },
      changed_at: { ...nullable('string'), format: 'date-time' },
      needs: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Present while it is paused until these credentials are set (`handoff credentials set NAME`).',
      },
      next: {
        type: 'array',
        description: 'The next three firings, soonest first; empty while paused.',
        items: {
          type: 'object',
          required: ['at', 'local'],
          properties: {
            at: { type: 'string', format: 'date-time' },
            local: { type: 'string', examples: ['2026-10-26 08:00 CET'] },
          },
        },
      },
    },
  },
};

const scheduleChange = (op: 'pause' | 'resume'): Json => ({
  parameters: [pathParam('workflow', 'The workflow id.')],
  post: {
    operationId: `${op}Schedule`,
    summary: op === 'pause' ? 'Pause a schedule (the workflow is not edited)' : 'Resume a paused schedule',
    description:
      'Saying the same twice changes nothing. On AWS the EventBridge schedule follows (DISABLED/ENABLED).',
    responses: {
      '200': ok('The schedule as it now is.', ref('Schedule')),
      '401': error('Unauthorized'),
      '404': error('NotFound'),
    },
  },
});

export const OUTPUT_PATHS: Record<string, Json> = {
  '/api/artifacts': {
    get: {
      operationId: 'listArtifacts',
      summary: "What runs produced (the workspace's, or one run's), newest first",
      parameters: [
        {
          name: 'run',
          in: 'query',
          required: false,
          description: 'Only this run.',
          schema: { type: 'string' },
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'Artifacts per page (default 50, at most 500).',
          schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
        },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "The previous page's `X-Next-Cursor`.",
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          ...ok('A page of the artifacts, without their content.', {
            type: 'array',
            items: ref('ArtifactSummary'),
          }),
          headers: {
            'X-Next-Cursor': {
              description: 'Where the next page starts (pass it as `cursor`); absent on the last page.',
              schema: { type: 'string' },
            },
          },
        },
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/artifacts/{id}': {
    parameters: [pathParam('id', 'The artifact id.')],
    get: {
      operationId: 'getArtifact',
      summary: 'One artifact, with its content',
      responses: {
        '200': ok('The artifact.', ref('Artifact')),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/artifacts/{id}/download': {
    parameters: [pathParam('id', 'The artifact id.')],
    get: {
      operationId: 'downloadArtifact',
      summary: "The artifact's content as a file (Content-Disposition: attachment, its own content type)",
      responses: {
        '200': {
          description: 'The content.',
          content: { 'text/plain': {}, 'text/markdown': {}, 'message/rfc822': {}, 'application/json': {} },
        },
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/schedules': {
    get: {
      operationId: 'listSchedules',
      summary: "Every scheduled workflow, its state and next firings in the profile's time zone",
      responses: {
        '200': ok('By workflow id.', { type: 'array', items: ref('Schedule') }),
        '401': error('Unauthorized'),
      },
    },
  },
  '/api/schedules/{workflow}/pause': scheduleChange('pause'),
  '/api/schedules/{workflow}/resume': scheduleChange('resume'),
};
