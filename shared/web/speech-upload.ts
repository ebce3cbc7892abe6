/**
 * What the speech routes (speech-api.ts) take, known before they load: which routes take a
 * recording, and how large one may be (the app's body ceiling reads these on every request).
 */
import { BYTES_PER_SECOND, MAX_SPEECH_SECONDS } from '../speech/wav.ts';

/** The longest drafted text a page sends with an answer (a text box's limit). */
export const MAX_WORDS_CHARS = 20_000;
/** The largest upload: 30 s of 16 kHz mono 16-bit audio, a generous header and the drafts' text boxes. */
export const MAX_SPEECH_BODY_BYTES = MAX_SPEECH_SECONDS * BYTES_PER_SECOND + 4096 + 4 * 2 * MAX_WORDS_CHARS;

/** True for the routes that take a recording (they have their own, audio-sized body limit). */
export function isSpeechUpload(path: string): boolean {
  return path === '/api/speech/transcribe' || /^\/api\/decisions\/[^/]+\/voice$/.test(path);
}
