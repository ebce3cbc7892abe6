/**
 * The fixed speech set: Talk commands and unrelated sentences, spoken by espeak-ng in two
 * voices at two speeds, as 16 kHz mono WAV. Shared by `npm run bench:speech` and the
 * accuracy test.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeWav, encodeWav, resample, SPEECH_SAMPLE_RATE } from '../shared/speech/wav.ts';

const run = promisify(execFile);

/** Each command phrase and the option it must answer (or the control it must be). */
export const COMMAND_PHRASES: readonly { text: string; intent: string }[] = [
  { text: 'archive it', intent: 'archive' },
  { text: 'file a ticket', intent: 'file_ticket' },
  { text: 'draft a reply', intent: 'draft_reply' },
  { text: 'leave it', intent: 'skip' },
  { text: 'delete it', intent: 'delete' },
  { text: 'skip it', intent: 'skip' },
  { text: 'why', intent: 'why' },
  { text: 'next', intent: 'next' },
];

export const VOICES = ['en-us', 'en-us+f3'] as const;
export const SPEEDS = [150, 185] as const;

/** Sentences that are none of the commands: each must answer nothing. */
export const OUT_OF_VOCABULARY: readonly string[] = [
  'I think we should get pizza tonight',
  'what is the weather like tomorrow',
  'the cat sat on the mat',
  'remind me to call my sister',
  'turn the radio down a little',
  'where did I leave my glasses',
  'the meeting moved to Thursday afternoon',
  'can you pass the salt please',
  'it is raining again in the city',
  'my train was late this morning',
  'we need more milk and some bread',
  'the kids are playing in the garden',
  'how long does the oven take to heat',
  'she bought a new bicycle last week',
  'please water the plants on Sunday',
  'the football match starts at seven',
  'this soup needs a bit more pepper',
  'I forgot to charge my phone',
  'open the window it is warm in here',
  'the library closes early on Fridays',
  'let us go for a walk after dinner',
  'a parcel arrived for the neighbours',
];

export interface Utterance {
  text: string;
  voice: string;
  speed: number;
  /** The intent it must give, or `none`. */
  intent: string;
}

/** Every utterance of the set: each command in each voice at each speed, then each sentence in each voice. */
export function utterances(): Utterance[] {
  const out: Utterance[] = [];
  for (const voice of VOICES)
    for (const speed of SPEEDS) for (const c of COMMAND_PHRASES) out.push({ ...c, voice, speed });
  OUT_OF_VOCABULARY.forEach((text, i) =>
    out.push({ text, voice: VOICES[i % VOICES.length]!, speed: SPEEDS[i % SPEEDS.length]!, intent: 'none' }),
  );
  return out;
}

/** espeak-ng speaks `text` into a 16 kHz mono 16-bit WAV file. */
export async function speakToWav(text: string, voice = 'en-us', speed = 165): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'handoff-fixture-'));
  try {
    const file = path.join(dir, 'say.wav');
    await run('espeak-ng', ['-v', voice, '-s', String(speed), '-w', file, '--', text]);
    const wav = decodeWav(await readFile(file));
    return encodeWav(resample(wav.pcm, wav.sampleRate, SPEECH_SAMPLE_RATE));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
