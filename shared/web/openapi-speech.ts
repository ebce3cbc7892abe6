/** The speech routes' part of the OpenAPI document (shared/web/openapi.ts merges it in). */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const oneLine = (description: string): Json => ok(description, ref('Error'));
const wav = { 'audio/wav': { schema: { type: 'string', contentMediaType: 'audio/wav' } } };

const AUDIO_FAILURES = {
  '401': error('Unauthorized'),
  '413': oneLine('The recording is longer than 30 s of 16 kHz audio.'),
  '415': oneLine('The body is not `audio/wav`.'),
  '422': oneLine('Not a WAV file, not 16 kHz mono 16-bit, or empty.'),
  '503': oneLine('The speech provider is not usable or is down (the line says what to install or set).'),
  '504': oneLine('The speech provider took longer than 20 s; nothing was done.'),
};

export const SPEECH_SCHEMAS: Record<string, Json> = {
  SpeechStatus: {
    type: 'object',
    required: ['provider', 'providers'],
    properties: {
      provider: { enum: ['local', 'aws', 'groq', 'browser'], description: 'HANDOFF_SPEECH_PROVIDER.' },
      providers: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'usable', 'detail'],
          properties: { name: { type: 'string' }, usable: { type: 'boolean' }, detail: { type: 'string' } },
        },
      },
    },
  },
  Transcript: {
    type: 'object',
    required: ['text', 'provider'],
    properties: {
      text: { type: 'string', description: 'Empty when nothing was recognised with confidence.' },
      provider: { type: 'string' },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
    },
  },
  VoiceAnswer: {
    type: 'object',
    required: ['transcript', 'intent', 'message'],
    properties: {
      transcript: { type: 'string' },
      intent: {
        type: 'string',
        description: 'An option of the decision, or why, next, stop, yes, no, none.',
      },
      action: { type: 'string', description: 'Present when the decision was answered.' },
      confirm: { const: true, description: 'Irreversible: send a "yes" recording with ?confirm=<intent>.' },
      note: { type: ['string', 'null'] },
      run_status: { type: 'string' },
      message: { type: 'string', description: 'One line for the person.' },
      edited: {
        const: true,
        description: 'The answer saved the person’s own words (an edited draft) instead of the draft.',
      },
      learned: {
        type: 'string',
        description:
          'Set when answered: what it taught, in words ("From now on: … → …", or "Nothing learned (just this once)").',
      },
      learned_rule: { oneOf: [{ $ref: '#/components/schemas/LearnedRule' }, { type: 'null' }] },
    },
  },
};

/** The drafts' text boxes sent with a spoken answer: `body:<action>`, `title:<action>`. */
const WORD_BOXES: Json = {
  patternProperties: { '^(body|title):[a-z][a-z0-9_]*$': { type: 'string', maxLength: 20000 } },
  additionalProperties: false,
};

export const SPEECH_PATHS: Record<string, Json> = {
  '/api/speech/status': {
    get: {
      operationId: 'speechStatus',
      summary: 'Which speech providers are usable, and why not',
      responses: { '200': ok('The providers.', ref('SpeechStatus')), '401': error('Unauthorized') },
    },
  },
  '/api/speech/transcribe': {
    post: {
      operationId: 'transcribe',
      summary: 'Hear a recording (16 kHz mono 16-bit WAV, at most 30 s)',
      requestBody: { required: true, content: wav },
      responses: { '200': ok('What was said.', ref('Transcript')), ...AUDIO_FAILURES },
    },
  },
  '/api/speech/speak': {
    post: {
      operationId: 'speak',
      summary: 'Speak a text (at most 3,000 characters) as 16 kHz mono WAV',
      requestBody: {
        required: true,
        content: json({
          type: 'object',
          required: ['text'],
          properties: { text: { type: 'string' }, voice: { type: 'string' } },
        }),
      },
      responses: {
        '200': { description: 'The speech.', content: wav },
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '422': error('Unprocessable'),
        '503': AUDIO_FAILURES['503'],
        '504': AUDIO_FAILURES['504'],
      },
    },
  },
  '/api/decisions/{id}/voice': {
    parameters: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The decision id.',
        schema: { type: 'string', minLength: 1 },
      },
      {
        name: 'confirm',
        in: 'query',
        required: false,
        description:
          'The irreversible option a previous recording asked for; only a spoken "yes" carries it out.',
        schema: { type: 'string' },
      },
    ],
    post: {
      operationId: 'answerByVoice',
      summary: 'Answer a decision by voice (a recording, or what the page’s own engine heard)',
      description:
        'A reversible option is answered at once (as POST /api/decisions/{id}); an irreversible one answers `confirm: true` and waits for a "yes". Speech that is none of the answers changes nothing. The drafts’ text boxes go with it as `body:<action>` and `title:<action>` (beside `transcript`, or as fields of a multipart form with the recording as `audio`): the chosen action’s words, as the person left them, are what is saved; a box left as drafted saves the draft.',
      requestBody: {
        required: true,
        content: {
          ...wav,
          ...json({
            type: 'object',
            required: ['transcript'],
            properties: { transcript: { type: 'string', maxLength: 1000 } },
            ...WORD_BOXES,
          }),
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['audio'],
              properties: { audio: { type: 'string', contentMediaType: 'audio/wav' } },
              ...WORD_BOXES,
            },
          },
        },
      },
      responses: {
        '200': ok('What was heard and what was done.', ref('VoiceAnswer')),
        '400': oneLine(
          'Neither a recording nor {"transcript"}, or a field that is no text box; nothing was done.',
        ),
        '404': error('NotFound'),
        '409': error('Conflict'),
        ...AUDIO_FAILURES,
      },
    },
  },
};
