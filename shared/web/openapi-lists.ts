/** The list routes' part of the OpenAPI document (shared/web/openapi.ts merges it in). */
import { DEFAULT_PAGE, MAX_PAGE } from './paging.ts';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const query = (name: string, description: string, schema: Json = { type: 'string', minLength: 1 }): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const PAGING = [
  query('limit', `Items per page (default ${DEFAULT_PAGE}).`, {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
  }),
  query('cursor', "The previous page's `next_cursor`."),
];
const page = (item: string): Json => ({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', items: ref(item) },
    next_cursor: {
      type: ['string', 'null'],
      description: 'Where the next page starts; null on the last page.',
    },
  },
});
const list = (
  operationId: string,
  summary: string,
  item: string,
  filters: Json[],
  notFound = false,
): Json => ({
  get: {
    operationId,
    summary,
    parameters: [...filters, ...PAGING],
    responses: {
      '200': ok('One page.', page(item)),
      '400': error('BadRequest'),
      '401': error('Unauthorized'),
      ...(notFound ? { '404': error('NotFound') } : {}),
    },
  },
});

export const LIST_SCHEMAS: Record<string, Json> = {
  RunRow: {
    type: 'object',
    description: 'As `handoff runs --json`.',
    required: ['run_id', 'workflow_id', 'status', 'started_at', 'finished_at'],
    properties: {
      run_id: { type: 'string' },
      workflow_id: { type: 'string' },
      status: { enum: ['running', 'waiting', 'completed', 'skipped', 'failed'] },
      started_at: { type: 'string' },
      finished_at: { type: ['string', 'null'] },
    },
  },
  DecisionRow: {
    description: 'As `handoff pending --json`, with its status and answer (null while it waits).',
    allOf: [
      ref('PendingDecision'),
      {
        type: 'object',
        required: ['status', 'answer', 'created_at'],
        properties: {
          status: { enum: ['pending', 'answered', 'expired'] },
          answer: {
            type: ['object', 'null'],
            properties: {
              action: { type: 'string' },
              note: { type: ['string', 'null'] },
              once: { type: 'boolean' },
              scope: { enum: ['source', 'workflow'] },
              by: { enum: ['human', 'expired', 'unreachable'] },
              at: { type: 'string' },
            },
          },
          created_at: { type: 'string' },
        },
      },
    ],
  },
  RuleRow: {
    type: 'object',
    description: 'As `handoff rules --json`.',
    required: ['id', 'match', 'action', 'source', 'note', 'pattern', 'created_at', 'workflow_id'],
    properties: {
      id: { type: 'string' },
      match: { type: 'object' },
      action: { type: 'string' },
      source: { enum: ['you', 'learned'] },
      note: { type: ['string', 'null'] },
      pattern: { type: ['string', 'null'] },
      created_at: { type: 'string' },
      workflow_id: { type: ['string', 'null'] },
      decision_id: { type: ['string', 'null'] },
      item_id: { type: ['string', 'null'] },
      superseded_by: { type: ['string', 'null'] },
    },
  },
  AuditRow: {
    type: 'object',
    description: 'As `handoff audit --json`.',
    required: ['run_id', 'item_id', 'outcome', 'action', 'decided_by', 'confidence', 'note', 'at'],
    properties: {
      run_id: { type: 'string' },
      item_id: { type: ['string', 'null'] },
      outcome: { type: 'string' },
      action: { type: ['string', 'null'] },
      decided_by: { type: ['string', 'null'] },
      confidence: { type: ['number', 'null'] },
      note: { type: ['string', 'null'] },
      at: { type: 'string' },
      agent: { type: 'string' },
      handoff: { type: 'object' },
    },
  },
};

export const LIST_PATHS: Record<string, Json> = {
  '/api/runs': list('listRuns', 'Runs, newest first (as `handoff runs`)', 'RunRow', [
    query('workflow', "Only this workflow's runs."),
    query('status', 'Only runs in this state.', {
      enum: ['running', 'waiting', 'completed', 'skipped', 'failed'],
    }),
  ]),
  '/api/decisions': list('listDecisions', 'Decisions, waiting and answered, oldest first', 'DecisionRow', [
    query('status', 'Only decisions in this state.', { enum: ['pending', 'answered', 'expired'] }),
    query('run', "Only this run's."),
    query('workflow', "Only this workflow's."),
    query('from', 'Only mail from this address, or from this domain.'),
  ]),
  '/api/rules': list(
    'listRules',
    'Rules, oldest first, superseded ones included (as `handoff rules`)',
    'RuleRow',
    [
      query('workflow', "Only this workflow's rules."),
      query('source', 'Only rules you set, or only learned ones.', { enum: ['you', 'learned'] }),
    ],
  ),
  '/api/audit': list(
    'listAudit',
    'The audit log (as `handoff audit`)',
    'AuditRow',
    [query('run', "Only this run's entries (404 for an unknown run).")],
    true,
  ),
  '/api/stats': {
    get: {
      operationId: 'getStats',
      summary: 'What was handled alone, by rules, by you, asked and declined (as `handoff stats`)',
      responses: {
        '200': ok('Today, this week and overall, and per run.', { type: 'object' }),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
      },
    },
  },
};
