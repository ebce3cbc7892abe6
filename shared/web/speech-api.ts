/**
 * The speech API, one definition per route (api-route.ts): `GET /api/speech/status`,
 * `POST /api/speech/transcribe` (a WAV body), `POST /api/speech/speak` (`{"text"}` → WAV) and
 * `POST /api/decisions/:id/voice` (a WAV body → the intent, and the answer when it was one).
 * Uploads have their own body ceiling (30 s of audio, speech-upload.ts) and every provider
 * call a time limit; a provider that is down is a 503. Loaded with the first request to one
 * of them (api-modules.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { WORD_FIELD } from '../runs/edited-words.ts';
import { answerByVoice } from '../speech/voice-answer.ts';
import { SpeechUnavailableError } from '../speech/provider.ts';
import type { Speech } from '../speech/speech.ts';
import { MAX_SPEECH_SECONDS } from '../speech/wav.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import { oneLine } from './run-launcher.ts';
import { MAX_SPEECH_BODY_BYTES, MAX_WORDS_CHARS } from './speech-upload.ts';
import type { WebDeps } from './web-deps.ts';

/** The longest a provider may take for one request before the caller gets a 504. */
export const SPEECH_TIMEOUT_MS = 20_000;

const WAV_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave']);
const HeardBody = z.object({ transcript: z.string().max(1000) }).catchall(z.string().max(MAX_WORDS_CHARS));
const SpeakBody = z.strictObject({
  text: z.string({ error: 'must be a string' }),
  voice: z.string().optional(),
});

class SpeechTimeoutError extends Error {}

function withinTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SpeechTimeoutError(`speech took longer than ${SPEECH_TIMEOUT_MS / 1000} s; nothing was done`),
        ),
      SPEECH_TIMEOUT_MS,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Maps a provider that is down (503) or too slow (504) to one line; everything else goes to the app. */
function speechFailure(c: Context, error: unknown): Response {
  if (error instanceof SpeechUnavailableError) return c.json({ error: oneLine(error.message) }, 503);
  if (error instanceof SpeechTimeoutError) return c.json({ error: error.message }, 504);
  throw error;
}

/** What was said, and the drafts' text boxes as the person left them (`body:<action>`, `title:<action>`). */
interface Said {
  said: Buffer | { transcript: string };
  words: Record<string, string>;
}

const WORDS_ERROR = (key: string) =>
  `"${key}" is not a field of a spoken answer: send "transcript" or the recording, and text boxes named body:<action> or title:<action>`;

/** The text-box fields among `fields`, or the first field that is none. */
function wordFields(fields: Record<string, unknown>, known: string): Record<string, string> | string {
  const words: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === known) continue;
    if (!WORD_FIELD.test(key) || typeof value !== 'string') return WORDS_ERROR(key);
    if (value.length > MAX_WORDS_CHARS) return `"${key}" is longer than ${MAX_WORDS_CHARS} characters`;
    words[key] = value;
  }
  return words;
}

/** A recording sent with the drafts' text boxes: multipart/form-data with `audio` (a WAV) and `body:<action>` fields. */
async function multipartBody(c: Context): Promise<Said | Response> {
  let form: Record<string, string | File>;
  try {
    form = (await c.req.parseBody()) as Record<string, string | File>;
  } catch {
    return c.json(
      { error: 'the form could not be read: send multipart/form-data with "audio" (a WAV)' },
      400,
    );
  }
  const audio = form.audio;
  if (!(audio instanceof File))
    return c.json({ error: 'the form has no "audio" file: send the recording as "audio" (a WAV)' }, 400);
  const words = wordFields(form, 'audio');
  if (typeof words === 'string') return c.json({ error: words }, 400);
  return { said: Buffer.from(await audio.arrayBuffer()), words };
}

async function wavBody(c: Context): Promise<Buffer | Response> {
  const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!WAV_TYPES.has(type))
    return c.json({ error: `send the recording as Content-Type: audio/wav (got ${type || 'none'})` }, 415);
  return Buffer.from(await c.req.arrayBuffer());
}

function isJson(c: Context): boolean {
  return (c.req.header('Content-Type') ?? '').toLowerCase().startsWith('application/json');
}

/**
 * What the page's own engine heard (`HANDOFF_SPEECH_PROVIDER=browser`): `{"transcript": "archive it"}`,
 * with the drafts' text boxes beside it (`"body:draft_reply": "…"`).
 */
async function heardBody(c: Context): Promise<Said | Response> {
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch {
    raw = undefined;
  }
  const body = HeardBody.safeParse(raw);
  if (!body.success)
    return c.json(
      { error: 'send a recording as audio/wav, or what the page heard as {"transcript": "archive it"}' },
      400,
    );
  const { transcript, ...rest } = body.data;
  const words = wordFields(rest, 'transcript');
  if (typeof words === 'string') return c.json({ error: words }, 400);
  return { said: { transcript }, words };
}

function isMultipart(c: Context): boolean {
  return (c.req.header('Content-Type') ?? '').toLowerCase().startsWith('multipart/form-data');
}

const oneLine400 = (description: string) => ({ description, schema: 'Error' as const });
const AUDIO_FAILURES = {
  401: 'Unauthorized' as const,
  413: oneLine400('The recording is longer than 30 s of 16 kHz audio.'),
  415: oneLine400('The body is not `audio/wav`.'),
  422: oneLine400('Not a WAV file, not 16 kHz mono 16-bit, or empty.'),
  503: oneLine400('The speech provider is not usable or is down (the line says what to install or set).'),
  504: oneLine400('The speech provider took longer than 20 s; nothing was done.'),
};
const Wav = z.string().meta({ contentMediaType: 'audio/wav' });
const SPEAK_SHAPE = '{"text": "Archive the newsletter?"}';

export const speechStatusRoute = defineRoute({
  method: 'get',
  path: '/api/speech/status',
  operationId: 'speechStatus',
  summary: 'Which speech providers are usable, and why not',
  responses: { 200: { description: 'The providers.', schema: 'SpeechStatus' }, 401: 'Unauthorized' },
});

export const transcribeRoute = defineRoute({
  method: 'post',
  path: '/api/speech/transcribe',
  operationId: 'transcribe',
  summary: 'Hear a recording (16 kHz mono 16-bit WAV, at most 30 s)',
  content: { 'audio/wav': Wav },
  responses: { 200: { description: 'What was said.', schema: 'Transcript' }, ...AUDIO_FAILURES },
});

export const speakRoute = defineRoute({
  method: 'post',
  path: '/api/speech/speak',
  operationId: 'speak',
  summary: 'Speak a text (at most 3,000 characters) as 16 kHz mono WAV',
  body: { schema: SpeakBody, shape: SPEAK_SHAPE, invalid: `body must be JSON like ${SPEAK_SHAPE}` },
  responses: {
    200: { description: 'The speech.', schema: 'Wav', media: 'audio/wav' },
    400: 'BadRequest',
    401: 'Unauthorized',
    422: 'Unprocessable',
    503: AUDIO_FAILURES[503],
    504: AUDIO_FAILURES[504],
  },
});

export const voiceRoute = defineRoute({
  method: 'post',
  path: '/api/decisions/{id}/voice',
  operationId: 'answerByVoice',
  summary: 'Answer a decision by voice (a recording, or what the page’s own engine heard)',
  description:
    'A reversible option is answered at once (as POST /api/decisions/{id}); an irreversible one answers `confirm: true` and waits for a "yes". Speech that is none of the answers changes nothing. The drafts’ text boxes go with it as `body:<action>` and `title:<action>` (beside `transcript`, or as fields of a multipart form with the recording as `audio`): the chosen action’s words, as the person left them, are what is saved; a box left as drafted saves the draft.',
  params: pathParam('id', 'The decision id.'),
  query: z.object({
    confirm: z.string().optional().meta({
      description:
        'The irreversible option a previous recording asked for; only a spoken "yes" carries it out.',
    }),
  }),
  content: {
    'audio/wav': Wav,
    'application/json': HeardBody,
    'multipart/form-data': z.object({ audio: Wav }).catchall(z.string().max(MAX_WORDS_CHARS)),
  },
  responses: {
    200: { description: 'What was heard and what was done.', schema: 'VoiceAnswer' },
    400: oneLine400(
      'Neither a recording nor {"transcript"}, or a field that is no text box; nothing was done.',
    ),
    404: 'NotFound',
    409: 'Conflict',
    ...AUDIO_FAILURES,
  },
});

export const SPEECH_ROUTES = [speechStatusRoute, transcribeRoute, speakRoute, voiceRoute];

/** Registers the speech routes' handlers (behind the app's `/api/*` authentication). */
export function registerSpeechRoutes(app: RouteSink, web: WebDeps, speech: Speech): void {
  // Only hearing is time-limited: an answer, once being recorded, is never cut off halfway.
  const timed: Speech = {
    ...speech,
    transcribe: (wav, options) => withinTime(speech.transcribe(wav, options)),
  };
  const upload: MiddlewareHandler = bodyLimit({
    maxSize: MAX_SPEECH_BODY_BYTES,
    onError: (c) =>
      c.json(
        { error: `the recording is too large: speech takes at most ${MAX_SPEECH_SECONDS} s of 16 kHz audio` },
        413,
      ),
  });

  serveRoute(app, speechStatusRoute, async (c) => c.json(await speech.status()));

  serveRoute(
    app,
    transcribeRoute,
    async (c) => {
      const wav = await wavBody(c);
      if (wav instanceof Response) return wav;
      try {
        const heard = await timed.transcribe(wav);
        return c.json({
          text: heard.text,
          provider: heard.provider,
          ...(heard.confidence === undefined ? {} : { confidence: heard.confidence }),
        });
      } catch (error) {
        return speechFailure(c, error);
      }
    },
    upload,
  );

  serveRoute(app, speakRoute, async (c, { body }) => {
    try {
      const options = body.voice ? { voice: body.voice } : {};
      const audio = await withinTime(speech.speak(body.text, options));
      return c.body(new Uint8Array(audio), 200, { 'Content-Type': 'audio/wav', 'Cache-Control': 'no-store' });
    } catch (error) {
      return speechFailure(c, error);
    }
  });

  serveRoute(
    app,
    voiceRoute,
    async (c, { params, query }) => {
      const sent: Said | Buffer | Response = isJson(c)
        ? await heardBody(c)
        : isMultipart(c)
          ? await multipartBody(c)
          : await wavBody(c);
      if (sent instanceof Response) return sent;
      const { said, words } = Buffer.isBuffer(sent) ? { said: sent, words: {} } : sent;
      try {
        const confirm = query.confirm || null;
        return c.json(await answerByVoice(web.engine, timed, params.id, said, confirm, words));
      } catch (error) {
        return speechFailure(c, error);
      }
    },
    upload,
  );
}
