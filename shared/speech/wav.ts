/**
 * The project's own RIFF/WAVE framing: 16-bit PCM in, a WAV file out, and back. The
 * server reads and writes only this, so it never needs ffmpeg.
 */
import { InvalidInputError } from '../errors/index.ts';
import { plural } from '../text/plural.ts';

/** The one audio format speech works in: 16 kHz, mono, 16-bit PCM. */
export const SPEECH_SAMPLE_RATE = 16_000;
/** The longest recording speech accepts (a spoken answer, not a dictation). */
export const MAX_SPEECH_SECONDS = 30;
/** Bytes of one second of speech audio. */
export const BYTES_PER_SECOND = SPEECH_SAMPLE_RATE * 2;

export interface Wav {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** The samples, little-endian, as they were in the `data` chunk. */
  pcm: Buffer;
}

const HEADER_BYTES = 44;

/** Frames little-endian 16-bit PCM as a canonical 44-byte-header WAV file. */
export function encodeWav(pcm: Buffer, sampleRate: number = SPEECH_SAMPLE_RATE, channels = 1): Buffer {
  const even = pcm.length % 2 === 0 ? pcm : pcm.subarray(0, pcm.length - 1);
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + even.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(even.length, 40);
  return Buffer.concat([header, even]);
}

const NOT_WAV = 'the audio is not a WAV file (expected RIFF/WAVE with 16 kHz mono 16-bit PCM)';

/**
 * Reads a WAV file's format and samples. Chunks other than `fmt ` and `data` are
 * skipped (odd-sized ones carry a pad byte); a `data` size past the end (a streamed
 * recording) is read to the end. Anything that is not PCM WAV is refused with one line.
 */
export function decodeWav(file: Buffer): Wav {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    throw new InvalidInputError(NOT_WAV);
  let offset = 12;
  let format: Omit<Wav, 'pcm'> | undefined;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > file.length)
        throw new InvalidInputError(`${NOT_WAV}: its fmt chunk is cut short`);
      const encoding = file.readUInt16LE(body);
      if (encoding !== 1 && encoding !== 0xfffe)
        throw new InvalidInputError(`the WAV audio is compressed (format ${encoding}); send 16-bit PCM`);
      format = {
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        bitsPerSample: file.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new InvalidInputError(`${NOT_WAV}: data comes before fmt`);
      const end = Math.min(file.length, body + size);
      const frame = format.channels * Math.max(1, format.bitsPerSample / 8);
      const usable = end - body - ((end - body) % frame);
      return { ...format, pcm: file.subarray(body, body + usable) };
    }
    offset = body + size + (size % 2);
  }
  throw new InvalidInputError(`${NOT_WAV}: it has no ${format ? 'data' : 'fmt'} chunk`);
}

/**
 * Checks a recording is one speech can take: 16 kHz mono 16-bit, not empty, not longer
 * than `maxSeconds`. Each refusal is one line saying what was wrong.
 */
export function checkSpeechWav(wav: Wav, maxSeconds: number = MAX_SPEECH_SECONDS): Wav {
  if (wav.sampleRate !== SPEECH_SAMPLE_RATE || wav.channels !== 1 || wav.bitsPerSample !== 16)
    throw new InvalidInputError(
      `the audio is ${wav.sampleRate} Hz, ${plural(wav.channels, 'channel')}, ${wav.bitsPerSample}-bit; send 16000 Hz mono 16-bit PCM`,
    );
  if (wav.pcm.length === 0)
    throw new InvalidInputError('the recording is empty: hold the talk button while you speak');
  const seconds = wav.pcm.length / BYTES_PER_SECOND;
  if (seconds > maxSeconds)
    throw new InvalidInputError(
      `the recording is ${Math.round(seconds)} s long; speech takes at most ${maxSeconds} s`,
    );
  return wav;
}

/** Decodes and checks an upload in one step (see decodeWav and checkSpeechWav). */
export function readSpeechWav(file: Buffer, maxSeconds: number = MAX_SPEECH_SECONDS): Wav {
  return checkSpeechWav(decodeWav(file), maxSeconds);
}

/** Linear-interpolation resampling of 16-bit mono PCM (espeak-ng speaks at 22,050 Hz). */
export function resample(pcm: Buffer, from: number, to: number): Buffer {
  if (from === to) return pcm;
  const count = Math.floor(pcm.length / 2);
  const sample = (i: number) => pcm.readInt16LE(Math.min(i, count - 1) * 2);
  const length = Math.floor((count * to) / from);
  const output = Buffer.alloc(length * 2);
  for (let i = 0; i < length; i++) {
    const at = (i * from) / to;
    const left = Math.floor(at);
    const a = sample(left);
    const b = sample(left + 1);
    output.writeInt16LE(Math.round(a + (b - a) * (at - left)), i * 2);
  }
  return output;
}
