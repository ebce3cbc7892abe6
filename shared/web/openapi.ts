/**
 * The OpenAPI 3.1 document for `/api/*`, served at `/api/openapi.json`. The schemas
 * follow the JSON the routes return (RunSummary, PendingJson, DecideResult,
 * WorkflowSummary, `{"error": ...}`; the list and answer routes from their own definitions,
 * openapi-routes.ts); test/aws/openapi.test.ts checks every `/api`
 * route the app serves is described here.
 */
import { OUTPUT_PATHS, OUTPUT_SCHEMAS } from './openapi-outputs.ts';
import { SPEECH_PATHS, SPEECH_SCHEMAS } from './openapi-speech.ts';
import { PLATFORM_PATHS, PLATFORM_SCHEMAS } from './openapi-platform.ts';
import { CHAT_PATHS, CHAT_SCHEMAS } from './chat-openapi.ts';
import { definedRoutesDocument } from './openapi-routes.ts';
import { COUNT_KEYS } from '../runs/counts.ts';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (description: string): Json => ({ $ref: `#/components/responses/${description}` });
const idParam = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});

const ERRORS: Record<string, string> = {
  BadRequest: 'The request body is not what this route takes.',
  Unauthorized:
    'Missing or wrong bearer token (local server; on AWS, API Gateway refuses unsigned calls itself).',
  NotFound: 'No such workflow, run or decision, or no such workspace for this key.',
  Conflict: 'The decision was already answered or expired, or someone else answered it just now.',
  TooLarge: 'The request body is too large.',
  Unprocessable: 'The input is well-formed but not acceptable (an invalid workflow, an action not offered).',
  ServerError: 'Something failed on the server; the log has the details.',
};

const SCHEMAS: Record<string, Json> = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string', description: 'One line saying what went wrong and what to do.' } },
    additionalProperties: false,
  },
  Trigger: {
    type: 'object',
    description: 'Exactly one kind.',
    properties: {
      manual: { const: true },
      schedule: { type: 'string', examples: ['cron(0 8 * * ? *)', 'rate(1 hour)'] },
      webhook: { const: true },
    },
    minProperties: 1,
    maxProperties: 1,
  },
  WorkflowSummary: {
    type: 'object',
    required: ['id', 'name', 'trigger'],
    properties: { id: { type: 'string' }, name: { type: 'string' }, trigger: ref('Trigger') },
  },
  Workflow: {
    type: 'object',
    description: 'A workflow definition (the same as a workflow file), as JSON or YAML.',
    required: ['id', 'name', 'instructions', 'trigger', 'source', 'actions', 'human_gate'],
    properties: {
      id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' },
      name: { type: 'string', minLength: 1 },
      instructions: { type: 'string', minLength: 1 },
      trigger: ref('Trigger'),
      source: {
        type: 'object',
        required: ['type', 'path'],
        properties: { type: { const: 'maildir' }, path: { type: 'string' } },
      },
      actions: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
            irreversible: { type: 'boolean', default: false },
            description: { type: 'string' },
          },
        },
      },
      human_gate: {
        type: 'object',
        required: ['options'],
        properties: { options: { type: 'array', minItems: 1, items: { type: 'string' } } },
      },
      confidence_threshold: { type: 'number', minimum: 0, maximum: 1 },
    },
  },
  RunStarted: {
    type: 'object',
    required: ['run_id'],
    properties: { run_id: { type: 'string' } },
  },
  RunSummary: {
    type: 'object',
    required: ['run_id', 'status', 'acted', 'by_memory', 'deferred', 'interrupt_id', 'counts'],
    properties: {
      run_id: { type: 'string' },
      status: { enum: ['running', 'waiting', 'completed', 'skipped', 'failed'] },
      acted: { type: 'integer', minimum: 0 },
      by_memory: {
        type: 'integer',
        minimum: 0,
        description: 'Decided by your rules or learned rules (an action or skip).',
      },
      deferred: { type: 'integer', minimum: 0, description: 'Set aside for a person.' },
      interrupt_id: { type: ['string', 'null'], description: 'The open set of questions, while waiting.' },
      error: { type: 'string', description: 'Only for a failed run: why it failed.' },
      counts: {
        type: 'object',
        description:
          'What the run did, counted as every surface counts it (docs/counts.md): acted = confident + by_rules + by_you; left_alone includes left_alone_by_rules.',
        required: [...COUNT_KEYS],
        properties: Object.fromEntries(COUNT_KEYS.map((k) => [k, { type: 'integer', minimum: 0 }])),
      },
    },
  },
  PendingDecision: {
    type: 'object',
    required: [
      'decision_id',
      'run_id',
      'interrupt_id',
      'workflow_id',
      'item_id',
      'sender',
      'subject',
      'suggested_action',
      'confidence',
      'reasoning',
      'options',
    ],
    properties: {
      decision_id: { type: 'string' },
      run_id: { type: 'string' },
      interrupt_id: { type: 'string' },
      workflow_id: { type: 'string' },
      item_id: { type: 'string' },
      sender: { type: 'string' },
      subject: { type: 'string' },
      suggested_action: { type: 'string' },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
      reasoning: { type: 'string' },
      options: { type: 'array', items: { type: 'string' } },
      agent: { type: 'string', description: 'Only in runs with specialists: the specialist that asked.' },
      drafts: {
        type: 'array',
        description:
          'Only when an option carries words: the words each would save (a reply’s body, a ticket’s title and body), editable with "body"/"title" in the answer.',
        items: {
          type: 'object',
          required: ['action', 'title', 'body', 'by'],
          properties: {
            action: { type: 'string' },
            title: { type: ['string', 'null'] },
            body: { type: 'string' },
            by: {
              enum: ['model', 'offline', 'template', 'person'],
              description: 'Who wrote them; `offline`: an offline draft, written without a language model.',
            },
          },
        },
      },
    },
  },
  DecisionAnswer: {
    type: 'object',
    required: ['action'],
    properties: {
      action: {
        type: 'string',
        minLength: 1,
        description: 'One of the decision\'s options, "approve_suggested" or "skip".',
      },
      note: {
        type: ['string', 'null'],
        description: 'Why; the learner reads it. It teaches the next run and is never part of any mail.',
      },
      once: {
        type: 'boolean',
        description: 'Just this once: the answer teaches nothing and cancels nothing.',
      },
      scope: {
        enum: ['source', 'workflow'],
        description:
          'Where the rule it teaches applies: "source" (default), every workflow reading the same mailbox; "workflow", only this one.',
      },
      body: {
        type: ['string', 'null'],
        description:
          "The words the chosen action carries, replacing the draft's: a reply's body (saved exactly as given, above the quoted original) or a ticket's body.",
      },
      title: { type: ['string', 'null'], description: "A ticket's title, replacing the drafted one." },
    },
    additionalProperties: false,
  },
  DecideResult: {
    type: 'object',
    required: ['decision_id', 'action', 'run_id', 'run_status', 'learned'],
    properties: {
      decision_id: { type: 'string' },
      action: { type: 'string' },
      run_id: { type: 'string' },
      run_status: {
        type: 'string',
        description:
          'The run after this answer: still waiting, or running again once every question is answered.',
      },
      learned: {
        type: 'string',
        description: 'What it taught, in words: "From now on: … → …", or "Nothing learned (just this once)".',
      },
      learned_rule: ref('LearnedRule'),
    },
  },
};

const PATHS: Record<string, Json> = {
  '/api/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      security: [],
      responses: { '200': ok('The OpenAPI document.', { type: 'object' }) },
    },
  },
  '/api/workflows': {
    get: {
      operationId: 'listWorkflows',
      summary: 'List workflows',
      responses: {
        '200': ok('Every workflow, by id.', { type: 'array', items: ref('WorkflowSummary') }),
        '401': error('Unauthorized'),
      },
    },
  },
  '/api/workflows/{id}': {
    parameters: [idParam('id', 'The workflow id (a slug).')],
    put: {
      operationId: 'putWorkflow',
      summary: 'Add or replace a workflow',
      description:
        'The body is validated like a workflow file; its `id` must match the path. Schedules follow. ' +
        'On AWS, a source that needs local folders (maildir) is refused with 400.',
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: ref('Workflow') },
          'application/yaml': { schema: ref('Workflow') },
        },
      },
      responses: {
        '200': ok('Replaced.', ref('WorkflowSummary')),
        '201': ok('Added.', ref('WorkflowSummary')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '413': error('TooLarge'),
        '422': error('Unprocessable'),
        '500': error('ServerError'),
      },
    },
    delete: {
      operationId: 'deleteWorkflow',
      summary: 'Remove a workflow (and its schedule)',
      responses: {
        '204': { description: 'Removed.' },
        '401': error('Unauthorized'),
        '404': error('NotFound'),
        '500': error('ServerError'),
      },
    },
  },
  '/api/workflows/{id}/runs': {
    parameters: [idParam('id', 'The workflow to run.')],
    post: {
      operationId: 'startRun',
      summary: 'Start a run now',
      description: 'Answers at once; poll `/api/runs/{run_id}` for where it got to.',
      responses: {
        '202': ok('The run was created and is being worked.', ref('RunStarted')),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/runs/{id}': {
    parameters: [idParam('id', 'The run id.')],
    get: {
      operationId: 'getRun',
      summary: 'Where a run is',
      responses: {
        '200': ok('The run.', ref('RunSummary')),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/workspaces': {
    get: {
      operationId: 'listWorkspaces',
      summary: 'The workspaces the key may see, each with its waiting decisions',
      responses: {
        '200': ok('Workspaces.', {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name', 'pending'],
            properties: { id: { type: 'string' }, name: { type: 'string' }, pending: { type: 'integer' } },
          },
        }),
        '401': error('Unauthorized'),
      },
    },
  },
  '/api/credentials': {
    get: {
      operationId: 'listCredentials',
      summary: "The workspace's credential names (never their values)",
      responses: {
        '200': ok('Credentials, by name.', {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'cipher', 'updated_at'],
            properties: {
              name: { type: 'string' },
              cipher: { type: 'string' },
              updated_at: { type: 'string' },
            },
          },
        }),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/credentials/{name}': {
    parameters: [idParam('name', 'The credential name, UPPER_SNAKE_CASE (MAIL_PASSWORD).')],
    put: {
      operationId: 'setCredential',
      summary: 'Set or replace a credential (write-only), resuming what waited for it',
      description:
        'The value is sealed and never returned. Workflows paused only until their credentials were set, and that now have all they need, are resumed (on AWS their schedules are enabled again); those still missing some stay paused.',
      requestBody: {
        required: true,
        content: json({
          type: 'object',
          required: ['value'],
          properties: { value: { type: 'string', minLength: 1, writeOnly: true } },
        }),
      },
      responses: {
        '200': ok('Set; what it resumed and what still waits.', {
          type: 'object',
          required: ['name', 'cipher', 'updated_at', 'resumed', 'still_paused'],
          properties: {
            name: { type: 'string' },
            cipher: { type: 'string' },
            updated_at: { type: 'string' },
            resumed: {
              type: 'array',
              items: {
                type: 'object',
                required: ['workflow_id', 'name'],
                properties: { workflow_id: { type: 'string' }, name: { type: 'string' } },
              },
            },
            still_paused: {
              type: 'array',
              items: {
                type: 'object',
                required: ['workflow_id', 'name', 'needs'],
                properties: {
                  workflow_id: { type: 'string' },
                  name: { type: 'string' },
                  needs: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        }),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '422': error('Unprocessable'),
      },
    },
    delete: {
      operationId: 'deleteCredential',
      summary: 'Forget a credential',
      responses: {
        '200': ok('Deleted.', {
          type: 'object',
          required: ['deleted'],
          properties: { deleted: { type: 'string' } },
        }),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
        '422': error('Unprocessable'),
      },
    },
  },
  '/api/pending': {
    get: {
      operationId: 'listPending',
      summary: 'Questions waiting for a person',
      responses: {
        '200': ok('Every pending decision.', { type: 'array', items: ref('PendingDecision') }),
        '401': error('Unauthorized'),
      },
    },
  },
  '/api/decisions/{id}': {
    parameters: [idParam('id', 'The decision id.')],
    post: {
      operationId: 'decide',
      summary: 'Answer a decision',
      description: 'The last answer of a run resumes it. Answers cannot be changed.',
      requestBody: { required: true, content: json(ref('DecisionAnswer')) },
      responses: {
        '200': ok('Recorded.', ref('DecideResult')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
        '409': error('Conflict'),
        '413': error('TooLarge'),
        '422': error('Unprocessable'),
      },
    },
  },
};

/** The parts' paths as one: the operations of a path two parts describe are kept side by side. */
function mergePaths(...parts: Record<string, Json>[]): Record<string, Json> {
  const merged: Record<string, Json> = {};
  for (const part of parts)
    for (const [path, operations] of Object.entries(part)) merged[path] = { ...merged[path], ...operations };
  return merged;
}

/** The OpenAPI document for `/api/*`, served at `/api/openapi.json`. */
export function openApiDocument(): Record<string, unknown> {
  const defined = definedRoutesDocument();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Handoff API',
      version: '1',
      description:
        'Workflows, runs and the questions they ask. Locally: `Authorization: Bearer <key>` (HANDOFF_API_KEY, ' +
        'or a key made by `handoff keys add`, which may be limited to one workspace). ' +
        'On AWS, API Gateway authorises `/api/*` callers (IAM, SigV4) before the app sees them. ' +
        'Every route works in the workspace named by the `X-Handoff-Workspace` header (absent: `default`, ' +
        'or the workspace a scoped key is limited to); an unknown workspace, or one the key may not see, is 404.',
    },
    security: [{ bearerAuth: [] }, { awsSigV4: [] }],
    paths: mergePaths(PATHS, defined.paths, OUTPUT_PATHS, SPEECH_PATHS, PLATFORM_PATHS, CHAT_PATHS),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'HANDOFF_API_KEY (local server).' },
        awsSigV4: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          description: 'AWS Signature Version 4 (service execute-api), checked by API Gateway (IAM) on AWS.',
        },
      },
      schemas: {
        ...SCHEMAS,
        ...defined.schemas,
        ...OUTPUT_SCHEMAS,
        ...SPEECH_SCHEMAS,
        ...PLATFORM_SCHEMAS,
        ...CHAT_SCHEMAS,
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([name, description]) => [name, ok(description, ref('Error'))]),
      ),
    },
  };
}
