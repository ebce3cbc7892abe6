import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { GroqSpeech, ORPHEUS_MODEL, WHISPER_MODEL } from '../../shared/speech/groq.ts';
import { SpeechUnavailableError } from '../../shared/speech/provider.ts';
import { decodeWav, encodeWav } from '../../shared/speech/wav.ts';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
type Answer = { status: number; headers?: Record<string, string>; body: string | Buffer };

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A local server speaking Groq's wire format: answers in turn, recording each request. */
async function groq(...answers: Answer[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(parts) });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, answer.headers ?? { 'Content-Type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/openai/v1`, seen };
}

/** The multipart form the server received, parsed as a real server would. */
async function formOf(seen: Seen): Promise<FormData> {
  return new Request('http://x/', {
    method: 'POST',
    headers: { 'Content-Type': seen.headers['content-type']! },
    body: new Uint8Array(seen.body),
  }).formData();
}

const noWait = { sleep: async () => undefined, baseDelayMs: 1 };
const wav = { sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm: Buffer.alloc(6400, 5) };

describe('the groq provider', () => {
  it('uploads the recording to Whisper as multipart WAV and reads the text', async () => {
    const { url, seen } = await groq({ status: 200, body: JSON.stringify({ text: ' Archive it. ' }) });
    const heard = await new GroqSpeech({ apiKey: 'gsk-test', baseUrl: url, retry: noWait }).transcribe(
      wav,
      {},
    );

    expect(heard).toEqual({ text: 'Archive it.', provider: 'groq' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/openai/v1/audio/transcriptions' });
    expect(seen[0]!.headers.authorization).toBe('Bearer gsk-test');
    expect(seen[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formOf(seen[0]!);
    expect(form.get('model')).toBe(WHISPER_MODEL);
    expect(form.get('language')).toBe('en');
    expect(form.get('response_format')).toBe('json');
    const file = form.get('file') as File;
    expect(file.name).toBe('speech.wav');
    expect(file.type).toBe('audio/wav');
    const uploaded = decodeWav(Buffer.from(await file.arrayBuffer()));
    expect(uploaded).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(uploaded.pcm.equals(wav.pcm)).toBe(true);
  });

  it('asks Orpheus for WAV and hands back 16 kHz mono audio', async () => {
    const spoken = encodeWav(Buffer.alloc(24000 * 2, 1), 24000); // Orpheus answers at 24 kHz: one second
    const { url, seen } = await groq({ status: 200, headers: { 'Content-Type': 'audio/wav' }, body: spoken });
    const audio = await new GroqSpeech({ apiKey: 'gsk-test', baseUrl: url }).speak(
      'Archive the newsletter?',
      {},
    );

    expect(seen[0]!.path).toBe('/openai/v1/audio/speech');
    expect(JSON.parse(seen[0]!.body.toString())).toEqual({
      model: ORPHEUS_MODEL,
      input: 'Archive the newsletter?',
      voice: 'autumn',
      response_format: 'wav',
    });
    const back = decodeWav(audio);
    expect(back).toMatchObject({ sampleRate: 16000, channels: 1 });
    expect(back.pcm.length).toBe(32000);
  });

  it('retries a 429 after the Retry-After it names, as the model providers do', async () => {
    const waits: number[] = [];
    const { url, seen } = await groq(
      {
        status: 429,
        headers: { 'Retry-After': '2', 'Content-Type': 'application/json' },
        body: '{"error":{"message":"slow down"}}',
      },
      { status: 200, body: JSON.stringify({ text: 'leave it' }) },
    );
    const sleep = async (ms: number) => void waits.push(ms);
    const heard = await new GroqSpeech({ apiKey: 'k', baseUrl: url, retry: { sleep } }).transcribe(wav, {});
    expect(heard.text).toBe('leave it');
    expect(seen).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it('gives up on a server that keeps failing with one line, after the bounded attempts', async () => {
    const { url, seen } = await groq({ status: 503, body: '{"error":{"message":"over capacity"}}' });
    const failing = new GroqSpeech({ apiKey: 'k', baseUrl: url, retry: { ...noWait, maxAttempts: 3 } });
    const error = await failing.transcribe(wav, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpeechUnavailableError);
    expect((error as Error).message).toBe(
      'Groq audio/transcriptions failed: HTTP 503: {"error":{"message":"over capacity"}}',
    );
    expect(seen).toHaveLength(3);
  });

  it('does not retry a refused connection or a bad request', async () => {
    const { url, seen } = await groq({ status: 400, body: '{"error":{"message":"file is not audio"}}' });
    await expect(
      new GroqSpeech({ apiKey: 'k', baseUrl: url, retry: noWait }).transcribe(wav, {}),
    ).rejects.toThrow('HTTP 400');
    expect(seen).toHaveLength(1);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    await expect(
      new GroqSpeech({ apiKey: 'k', baseUrl: url, retry: noWait }).speak('hi', {}),
    ).rejects.toThrow(`(nothing listens at ${url})`);
  });

  it('needs GROQ_API_KEY', async () => {
    const speech = new GroqSpeech({ apiKey: undefined, baseUrl: 'http://127.0.0.1:9/v1' });
    expect(await speech.status()).toMatchObject({
      usable: false,
      detail: expect.stringContaining('GROQ_API_KEY'),
    });
    await expect(speech.transcribe(wav, {})).rejects.toThrow('Groq speech needs GROQ_API_KEY');
  });
});
