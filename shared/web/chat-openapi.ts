/** The chat routes' part of the OpenAPI document (see openapi.ts and chat-api-routes.ts). */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const chatId: Json = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The chat id.',
  schema: { type: 'string', minLength: 1 },
};

export const CHAT_SCHEMAS: Record<string, Json> = {
  ChatCreated: { type: 'object', required: ['chat_id'], properties: { chat_id: { type: 'string' } } },
  ChatMessage: {
    type: 'object',
    required: ['message'],
    properties: { message: { type: 'string', minLength: 1, maxLength: 8000 } },
  },
  ChatConfirm: {
    type: 'object',
    description:
      'The world-changing step waiting for the person’s yes ("yes", "save it", "run it", or the card’s button).',
    required: ['id', 'tool', 'summary'],
    properties: {
      id: { type: 'string' },
      tool: { type: 'string' },
      summary: { type: 'string' },
      card: ref('WorkflowCard'),
    },
  },
  WorkflowCard: {
    type: 'object',
    description:
      'A workflow in plain words, on a save or delete waiting for the yes: answer yes, no, or say what to change.',
    required: [
      'workflow_id',
      'name',
      'source',
      'schedule',
      'instructions',
      'actions',
      'threshold',
      'credentials',
      'preview',
      'saves_as',
    ],
    properties: {
      workflow_id: { type: 'string' },
      name: { type: 'string' },
      source: {
        type: 'string',
        examples: ['the IMAP mailbox INBOX of me@fastmail.com at imap.fastmail.com'],
      },
      schedule: { type: 'string', examples: ['every weekday at 09:00 (Europe/Helsinki)'] },
      instructions: { type: 'string' },
      actions: { type: 'array', items: { type: 'string' } },
      threshold: { type: 'string' },
      credentials: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'set'],
          properties: { name: { type: 'string' }, set: { type: 'boolean' } },
        },
      },
      preview: {
        oneOf: [
          {
            type: 'object',
            required: ['count', 'rows'],
            properties: {
              count: { type: 'integer' },
              rows: { type: 'array', items: { type: 'object' } },
              error: { type: 'string' },
            },
          },
          { type: 'null' },
        ],
      },
      saves_as: {
        type: 'string',
        enum: ['active', 'paused'],
        description: 'paused: a credential it needs is not set; saved now it would not run.',
      },
    },
  },
  ChatReply: {
    type: 'object',
    required: ['chat_id', 'text'],
    properties: {
      chat_id: { type: 'string' },
      text: { type: 'string' },
      workflow_id: { type: 'string', description: 'The workflow this turn saved.' },
      run_id: { type: 'string', description: 'The run this turn started or resumed.' },
      confirm: ref('ChatConfirm'),
    },
  },
  ChatConfirmId: {
    type: 'object',
    required: ['confirm_id'],
    properties: { confirm_id: { type: 'string', description: 'The waiting step’s id (`confirm.id`).' } },
  },
  ChatDraftEdit: {
    oneOf: [
      {
        type: 'object',
        required: ['fields'],
        properties: {
          fields: {
            type: 'object',
            description:
              'Parts to change, each in words: schedule ("every weekday at 9", cron(…), rate(…), manual, webhook), threshold (0.8 or 80%), actions and options ("archive, flag"), source (the parts to change, { host: …, mailbox: … }, or a Maildir path), name, instructions.',
            propertyNames: {
              enum: ['name', 'schedule', 'source', 'instructions', 'actions', 'options', 'threshold'],
            },
            additionalProperties: { type: 'string' },
          },
        },
      },
      {
        type: 'object',
        required: ['workflow'],
        properties: { workflow: { type: 'string', description: 'The whole draft as YAML or JSON.' } },
      },
    ],
  },
  ChatCredential: {
    type: 'object',
    required: ['name', 'value'],
    properties: { name: { type: 'string' }, value: { type: 'string', writeOnly: true } },
  },
  ChatSummary: {
    type: 'object',
    required: ['chat_id', 'title', 'turns', 'updated_at'],
    properties: {
      chat_id: { type: 'string' },
      title: { type: 'string' },
      turns: { type: 'integer' },
      updated_at: { type: 'string' },
    },
  },
  Chat: {
    type: 'object',
    required: ['chat_id', 'title', 'created_at', 'updated_at', 'turns', 'confirm'],
    properties: {
      chat_id: { type: 'string' },
      title: { type: 'string' },
      created_at: { type: 'string' },
      updated_at: { type: 'string' },
      turns: {
        type: 'array',
        items: {
          type: 'object',
          required: ['role', 'text', 'at', 'cards'],
          properties: {
            role: { enum: ['user', 'assistant'] },
            text: { type: 'string' },
            at: { type: 'string' },
            cards: {
              type: 'array',
              items: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
            },
          },
        },
      },
      confirm: { oneOf: [ref('ChatConfirm'), { type: 'null' }] },
    },
  },
};

export const CHAT_PATHS: Record<string, Json> = {
  '/api/chats': {
    get: {
      operationId: 'listChats',
      summary: 'The chats with the workspace assistant, most recent first',
      responses: {
        '200': ok('Every chat.', { type: 'array', items: ref('ChatSummary') }),
        '401': error('Unauthorized'),
      },
    },
    post: {
      operationId: 'createChat',
      summary: 'Start a chat with the workspace assistant',
      responses: {
        '201': ok('Created.', ref('ChatCreated')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '413': error('TooLarge'),
      },
    },
  },
  '/api/chats/{id}': {
    parameters: [chatId],
    get: {
      operationId: 'getChat',
      summary: 'A chat with its turns',
      responses: {
        '200': ok('The chat.', ref('Chat')),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/chats/{id}/messages': {
    parameters: [chatId],
    post: {
      operationId: 'sendChatMessage',
      summary: 'Send a message; the reply comes when the turn is done (it streams on chat:<id>)',
      requestBody: { required: true, content: json(ref('ChatMessage')) },
      responses: {
        '200': ok('The assistant’s reply.', ref('ChatReply')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
        '413': error('TooLarge'),
        '422': error('Unprocessable'),
      },
    },
  },
  '/api/chats/{id}/confirm': cardRoute(
    'confirmChatStep',
    'The card’s Yes: carry out the waiting step (save, delete, run, …)',
    ref('ChatConfirmId'),
  ),
  '/api/chats/{id}/cancel': cardRoute(
    'cancelChatStep',
    'The card’s No: drop the waiting step; a draft is kept',
    ref('ChatConfirmId'),
  ),
  '/api/chats/{id}/draft': cardRoute(
    'editChatDraft',
    'The card’s Edit: change the draft field by field, or replace it with a workflow text; asks to save again',
    ref('ChatDraftEdit'),
    ok('Every problem found; nothing changed.', {
      type: 'object',
      required: ['error', 'problems'],
      properties: { error: { type: 'string' }, problems: { type: 'array', items: { type: 'string' } } },
    }),
  ),
  '/api/chats/{id}/credential': cardRoute(
    'setChatCredential',
    'The card’s credential field: set a credential the draft needs (write-only); resumes what waited for it',
    ref('ChatCredential'),
  ),
};

/** A card route: a JSON body in, the reply as a message's out. */
function cardRoute(operationId: string, summary: string, body: Json, unprocessable?: Json): Json {
  return {
    parameters: [chatId],
    post: {
      operationId,
      summary,
      requestBody: { required: true, content: json(body) },
      responses: {
        '200': ok('The assistant’s reply, with the card again when a save still waits.', ref('ChatReply')),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
        '413': error('TooLarge'),
        '422': unprocessable ?? error('Unprocessable'),
      },
    },
  };
}
