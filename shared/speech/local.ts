/**
 * The offline provider: Debian's pocketsphinx (US English model) hears, espeak-ng speaks.
 *
 * A recogniser held to a grammar maps any sound to some phrase of it (an unrelated
 * sentence comes back as "why" or "delete it"), so the grammar's answer is checked
 * against the audio itself: the words it found must cover the stretches where someone
 * was speaking. Speech the grammar had to call silence was something else, and the
 * transcript is then empty.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { vocabulary } from './intents.ts';
import {
  SpeechUnavailableError,
  type ProviderStatus,
  type SpeakOptions,
  type SpeechProvider,
  type TranscribeOptions,
  type Transcript,
} from './provider.ts';
import { decodeWav, encodeWav, resample, SPEECH_SAMPLE_RATE, type Wav } from './wav.ts';

const run = promisify(execFile);

export const POCKETSPHINX = 'pocketsphinx_continuous';
export const ESPEAK = 'espeak-ng';
export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const INSTALL = 'apt-get install -y pocketsphinx pocketsphinx-en-us espeak-ng';

/** Below this share of the spoken audio covered by the grammar's words, the speech was something else. */
export const COVERAGE_FLOOR = 0.85;
/** The vocabulary used when the caller names none: every built-in answer and control. */
const DEFAULT_OPTIONS = ['archive', 'delete', 'file_ticket', 'draft_reply', 'skip', 'approve_suggested'];

export interface LocalSpeechOptions {
  modelDir?: string;
  /** Default `en-us`. */
  voice?: string;
  /** espeak-ng words per minute. Default 165. */
  rate?: number;
  coverageFloor?: number;
}

/** The pronouncing dictionary, word → phones (first pronunciation), read once per process. */
const dictionaries = new Map<string, Promise<Map<string, string[]>>>();
function dictionary(modelDir: string): Promise<Map<string, string[]>> {
  let dict = dictionaries.get(modelDir);
  if (!dict) {
    dict = readFile(path.join(modelDir, 'cmudict-en-us.dict'), 'utf8').then((text) => {
      const words = new Map<string, string[]>();
      for (const line of text.split('\n')) {
        const [word, ...phones] = line.trim().split(/\s+/);
        if (word && phones.length > 0 && !word.includes('(')) words.set(word, phones);
      }
      return words;
    });
    dictionaries.set(modelDir, dict);
  }
  return dict;
}

const FRAME_SECONDS = 0.02;

/**
 * The share of the frames where someone is speaking (energy above a tenth of the loud
 * frames') that fall inside the recognised words; 0 when nothing was loud.
 */
export function coverage(pcm: Buffer, words: readonly { start: number; end: number }[]): number {
  const frame = Math.round(FRAME_SECONDS * SPEECH_SAMPLE_RATE) * 2;
  const energies: number[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame) {
    let sum = 0;
    for (let i = at; i < at + frame; i += 2) sum += pcm.readInt16LE(i) ** 2;
    energies.push(Math.sqrt(sum / (frame / 2)));
  }
  const loud = [...energies].sort((x, y) => x - y)[Math.floor(energies.length * 0.95)] ?? 0;
  const floor = Math.max(loud * 0.1, 100);
  let speaking = 0;
  let covered = 0;
  energies.forEach((energy, i) => {
    if (energy < floor) return;
    speaking += 1;
    const t = (i + 0.5) * FRAME_SECONDS;
    if (words.some((w) => t >= w.start - FRAME_SECONDS && t <= w.end + FRAME_SECONDS)) covered += 1;
  });
  return speaking === 0 ? 0 : covered / speaking;
}

function jsgf(phrases: readonly string[]): string {
  return `#JSGF V1.0;\ngrammar talk;\npublic <talk> = ${phrases.join(' | ')};\n`;
}

/** The recogniser and synthesiser on this machine. */
export class LocalSpeech implements SpeechProvider {
  readonly name = 'local' as const;
  private readonly modelDir: string;

  constructor(private readonly options: LocalSpeechOptions = {}) {
    this.modelDir = options.modelDir ?? MODEL_DIR;
  }

  async status(): Promise<ProviderStatus> {
    const missing: string[] = [];
    if (!(await onPath(POCKETSPHINX))) missing.push(`${POCKETSPHINX} (package pocketsphinx)`);
    if (!existsSync(path.join(this.modelDir, 'en-us')))
      missing.push(`the US English model (package pocketsphinx-en-us)`);
    if (!(await onPath(ESPEAK))) missing.push(`${ESPEAK} (package espeak-ng)`);
    if (missing.length > 0)
      return { name: this.name, usable: false, detail: `missing ${missing.join(', ')}: ${INSTALL}` };
    return { name: this.name, usable: true, detail: 'pocketsphinx (US English) and espeak-ng, offline' };
  }

  async transcribe(audio: Wav, options: TranscribeOptions): Promise<Transcript> {
    const words = await dictionary(this.modelDir).catch((error: unknown) => {
      throw new SpeechUnavailableError(`the local recogniser has no model at ${this.modelDir}: ${INSTALL}`, {
        cause: error,
      });
    });
    const phrases = (options.vocabulary ?? vocabulary(DEFAULT_OPTIONS))
      .map((p) =>
        p
          .toLowerCase()
          .replace(/[^a-z' ]/g, ' ')
          .trim()
          .replace(/\s+/g, ' '),
      )
      .filter((p) => p !== '' && p.split(' ').every((w) => words.has(w)));
    const dir = await mkdtemp(path.join(tmpdir(), 'handoff-speech-'));
    try {
      const wav = path.join(dir, 'in.wav');
      const grammar = path.join(dir, 'talk.jsgf');
      await Promise.all([
        writeFile(wav, encodeWav(audio.pcm, audio.sampleRate)),
        writeFile(grammar, jsgf(phrases)),
      ]);
      const model = [
        '-hmm',
        path.join(this.modelDir, 'en-us'),
        '-dict',
        path.join(this.modelDir, 'cmudict-en-us.dict'),
      ];
      const out = await this.sphinx([
        '-infile',
        wav,
        '-logfn',
        '/dev/null',
        '-time',
        'yes',
        ...model,
        '-jsgf',
        grammar,
      ]);
      const lines = out.trim().split('\n');
      const text = lines[0]?.trim() ?? '';
      if (text === '') return { text: '', confidence: 0, provider: this.name };
      const segments = lines.slice(1).flatMap((line) => {
        const [word, start, end] = line.trim().split(/\s+/);
        return word && !/^(<.*>|\[.*\])$/.test(word) ? [{ start: Number(start), end: Number(end) }] : [];
      });
      const confidence = Math.round(coverage(audio.pcm, segments) * 100) / 100;
      const floor = this.options.coverageFloor ?? COVERAGE_FLOOR;
      return { text: confidence >= floor ? text : '', confidence, provider: this.name };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async speak(text: string, options: SpeakOptions): Promise<Buffer> {
    const dir = await mkdtemp(path.join(tmpdir(), 'handoff-speak-'));
    try {
      const out = path.join(dir, 'out.wav');
      const voice = options.voice ?? this.options.voice ?? 'en-us';
      await run(ESPEAK, ['-v', voice, '-s', String(this.options.rate ?? 165), '-w', out, '--', text]).catch(
        (error: unknown) => {
          throw unavailable(ESPEAK, error);
        },
      );
      const spoken = decodeWav(await readFile(out));
      return encodeWav(resample(spoken.pcm, spoken.sampleRate, SPEECH_SAMPLE_RATE));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async sphinx(args: string[]): Promise<string> {
    try {
      return (await run(POCKETSPHINX, args, { maxBuffer: 1 << 20, timeout: 30_000 })).stdout;
    } catch (error) {
      throw unavailable(POCKETSPHINX, error);
    }
  }
}

function unavailable(program: string, error: unknown): SpeechUnavailableError {
  const code = (error as { code?: unknown }).code;
  return new SpeechUnavailableError(
    code === 'ENOENT'
      ? `${program} is not installed: ${INSTALL}`
      : `${program} failed: ${String((error as { stderr?: unknown }).stderr ?? error)
          .trim()
          .split('\n')
          .pop()}`,
    { cause: error },
  );
}

async function onPath(program: string): Promise<boolean> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((dir) => existsSync(path.join(dir, program)));
}
