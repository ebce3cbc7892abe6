/**
 * The speech API: `GET /api/speech/status`, `POST /api/speech/transcribe` (a WAV body),
 * `POST /api/speech/speak` (`{"text"}` → WAV) and `POST /api/decisions/:id/voice` (a WAV
 * body → the intent, and the answer when it was one). Uploads have their own body limit
 * (30 s of audio) and every provider call a time limit; a provider that is down is a 503.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { WORD_FIELD } from '../runs/edited-words.ts';
import { answerByVoice } from '../speech/voice-answer.ts';
import { SpeechUnavailableError } from '../speech/provider.ts';
import type { Speech } from '../speech/speech.ts';
import { MAX_SPEECH_SECONDS, BYTES_PER_SECOND } from '../speech/wav.ts';
import { oneLine } from './run-launcher.ts';
import type { WebDeps } from './web-deps.ts';

/** The longest drafted text a page sends with an answer (a text box's limit). */
const MAX_WORDS_CHARS = 20_000;
/** The largest upload: 30 s of 16 kHz mono 16-bit audio, a generous header and the drafts' text boxes. */
export const MAX_SPEECH_BODY_BYTES = MAX_SPEECH_SECONDS * BYTES_PER_SECOND + 4096 + 4 * 2 * MAX_WORDS_CHARS;
/** The longest a provider may take for one request before the caller gets a 504. */
export const SPEECH_TIMEOUT_MS = 20_000;

const WAV_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave']);
const HeardBody = z.object({ transcript: z.string().max(1000) }).catchall(z.string().max(MAX_WORDS_CHARS));
const SpeakBody = z.strictObject({
  text: z.string({ error: 'must be a string' }),
  voice: z.string().optional(),
});

/** True for the routes that take a recording (they have their own, audio-sized body limit). */
export function isSpeechUpload(path: string): boolean {
  return path === '/api/speech/transcribe' || /^\/api\/decisions\/[^/]+\/voice$/.test(path);
}

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

/** Registers the speech routes (behind the app's `/api/*` authentication). */
export function registerSpeechRoutes(app: Hono, web: WebDeps, speech: Speech): void {
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

  app.get('/api/speech/status', async (c) => c.json(await speech.status()));

  app.post('/api/speech/transcribe', upload, async (c) => {
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
  });

  app.post('/api/speech/speak', async (c) => {
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      return c.json({ error: 'body must be JSON like {"text": "Archive the newsletter?"}' }, 400);
    }
    const body = SpeakBody.safeParse(raw);
    if (!body.success)
      return c.json({ error: 'body must be JSON like {"text": "Archive the newsletter?"}' }, 400);
    try {
      const options = body.data.voice ? { voice: body.data.voice } : {};
      const audio = await withinTime(speech.speak(body.data.text, options));
      return c.body(new Uint8Array(audio), 200, { 'Content-Type': 'audio/wav', 'Cache-Control': 'no-store' });
    } catch (error) {
      return speechFailure(c, error);
    }
  });

  app.post('/api/decisions/:id/voice', upload, async (c) => {
    const sent: Said | Buffer | Response = isJson(c)
      ? await heardBody(c)
      : isMultipart(c)
        ? await multipartBody(c)
        : await wavBody(c);
    if (sent instanceof Response) return sent;
    const { said, words } = Buffer.isBuffer(sent) ? { said: sent, words: {} } : sent;
    try {
      const confirm = c.req.query('confirm') || null;
      return c.json(await answerByVoice(web.engine, timed, c.req.param('id'), said, confirm, words));
    } catch (error) {
      return speechFailure(c, error);
    }
  });
}
