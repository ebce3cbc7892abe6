/**
 * The `groq` provider over the OpenAI-compatible API: Whisper hears
 * (`POST /audio/transcriptions`, a multipart upload of the WAV) and Orpheus speaks
 * (`POST /audio/speech`, WAV back), both behind the model providers' retry policy.
 */
import { errorMessage } from '../errors/index.ts';
import { classifyProviderError } from '../models/provider-errors.ts';
import {
  SpeechUnavailableError,
  type ProviderStatus,
  type SpeakOptions,
  type SpeechProvider,
  type TranscribeOptions,
  type Transcript,
} from './provider.ts';
import { HttpStatusError, withRetries, type RetryOptions } from './retry.ts';
import { decodeWav, encodeWav, resample, SPEECH_SAMPLE_RATE, type Wav } from './wav.ts';

export const WHISPER_MODEL = 'whisper-large-v3-turbo';
export const ORPHEUS_MODEL = 'canopylabs/orpheus-v1-english';
export const ORPHEUS_VOICE = 'autumn';

export interface GroqSpeechOptions {
  apiKey: string | undefined;
  baseUrl: string;
  retry?: RetryOptions;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

/** Groq Whisper and Orpheus. */
export class GroqSpeech implements SpeechProvider {
  readonly name = 'groq' as const;

  constructor(private readonly options: GroqSpeechOptions) {}

  async status(): Promise<ProviderStatus> {
    if (!this.options.apiKey)
      return { name: this.name, usable: false, detail: 'set GROQ_API_KEY to use Groq Whisper and Orpheus' };
    return { name: this.name, usable: true, detail: `Whisper and Orpheus at ${this.options.baseUrl}` };
  }

  async transcribe(audio: Wav, options: TranscribeOptions): Promise<Transcript> {
    const wav = encodeWav(audio.pcm, audio.sampleRate);
    const response = await this.request('audio/transcriptions', () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'speech.wav');
      form.append('model', WHISPER_MODEL);
      form.append('language', (options.language ?? 'en-US').split('-')[0]!);
      form.append('response_format', 'json');
      form.append('temperature', '0');
      return form;
    });
    const body = (await response.json()) as { text?: unknown };
    if (typeof body.text !== 'string')
      throw new SpeechUnavailableError('Groq Whisper answered without a text');
    return { text: body.text.trim(), provider: this.name };
  }

  async speak(text: string, options: SpeakOptions): Promise<Buffer> {
    const response = await this.request('audio/speech', () =>
      JSON.stringify({
        model: ORPHEUS_MODEL,
        input: text,
        voice: options.voice ?? ORPHEUS_VOICE,
        response_format: 'wav',
      }),
    );
    const spoken = decodeWav(Buffer.from(await response.arrayBuffer()));
    return encodeWav(resample(spoken.pcm, spoken.sampleRate, SPEECH_SAMPLE_RATE));
  }

  private async request(route: string, body: () => FormData | string): Promise<Response> {
    if (!this.options.apiKey) throw new SpeechUnavailableError('Groq speech needs GROQ_API_KEY');
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/${route}`;
    try {
      return await withRetries(async () => {
        const payload = body();
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${this.options.apiKey}`,
            ...(typeof payload === 'string' ? { 'Content-Type': 'application/json' } : {}),
          },
          body: payload,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
        if (!response.ok) throw new HttpStatusError(response.status, response.headers, await response.text());
        return response;
      }, this.options.retry);
    } catch (error) {
      const failure = classifyProviderError(error);
      const where = failure.kind === 'refused' ? ` (nothing listens at ${this.options.baseUrl})` : '';
      throw new SpeechUnavailableError(`Groq ${route} failed${where}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }
}
