/**
 * The `aws` provider: Amazon Transcribe streaming hears (the PCM sent as an event stream
 * of 100 ms chunks) and Polly speaks (a neural voice, 16 kHz PCM framed as WAV). The SDK
 * packages load on first use, so a function that never speaks never imports them.
 */
import type { PollyClient } from '@aws-sdk/client-polly';
import type { AudioStream, TranscribeStreamingClient } from '@aws-sdk/client-transcribe-streaming';
import { regionOption } from '../config/aws-region.ts';
import { errorMessage } from '../errors/index.ts';
import { clientOf, onFirstUse, type ClientRef } from '../aws/lazy-client.ts';
import {
  SpeechUnavailableError,
  type ProviderStatus,
  type SpeakOptions,
  type SpeechProvider,
  type TranscribeOptions,
  type Transcript,
} from './provider.ts';
import { BYTES_PER_SECOND, encodeWav, SPEECH_SAMPLE_RATE, type Wav } from './wav.ts';
import { needs } from '../config/needs.ts';

needs('speech'); // transcribe:StartStreamTranscription and polly:SynthesizeSpeech

/** Bytes per audio event: 100 ms of 16 kHz 16-bit mono (Transcribe wants 50–200 ms chunks). */
export const CHUNK_BYTES = BYTES_PER_SECOND / 10;
/** Polly's neural voice when none is named. */
export const DEFAULT_VOICE = 'Joanna';

export interface AwsSpeechOptions {
  region?: string | undefined;
  transcribe?: ClientRef<TranscribeStreamingClient>;
  polly?: ClientRef<PollyClient>;
}

/** The PCM as Transcribe's input event stream. */
async function* audioEvents(pcm: Buffer): AsyncGenerator<AudioStream> {
  for (let at = 0; at < pcm.length; at += CHUNK_BYTES)
    yield { AudioEvent: { AudioChunk: new Uint8Array(pcm.subarray(at, at + CHUNK_BYTES)) } };
}

/** Transcribe streaming and Polly. */
export class AwsSpeech implements SpeechProvider {
  readonly name = 'aws' as const;
  private readonly transcribeClient: ClientRef<TranscribeStreamingClient>;
  private readonly pollyClient: ClientRef<PollyClient>;

  constructor(private readonly options: AwsSpeechOptions = {}) {
    const region = regionOption(options.region);
    this.transcribeClient =
      options.transcribe ??
      onFirstUse(
        async () =>
          new (await import('@aws-sdk/client-transcribe-streaming')).TranscribeStreamingClient(region),
      );
    this.pollyClient =
      options.polly ??
      onFirstUse(async () => new (await import('@aws-sdk/client-polly')).PollyClient(region));
  }

  async status(): Promise<ProviderStatus> {
    if (!this.options.region)
      return {
        name: this.name,
        usable: false,
        detail: 'set AWS_REGION (and AWS credentials) to use Transcribe and Polly',
      };
    return {
      name: this.name,
      usable: true,
      detail: `Amazon Transcribe streaming and Polly in ${this.options.region ?? 'the profile region'}`,
    };
  }

  async transcribe(audio: Wav, options: TranscribeOptions): Promise<Transcript> {
    const { StartStreamTranscriptionCommand } = await import('@aws-sdk/client-transcribe-streaming');
    try {
      const client = await clientOf(this.transcribeClient);
      const response = await client.send(
        new StartStreamTranscriptionCommand({
          LanguageCode: (options.language ?? 'en-US') as 'en-US',
          MediaSampleRateHertz: SPEECH_SAMPLE_RATE,
          MediaEncoding: 'pcm',
          AudioStream: audioEvents(audio.pcm),
        }),
      );
      const finals: string[] = [];
      const confidences: number[] = [];
      for await (const event of response.TranscriptResultStream ?? []) {
        for (const result of event.TranscriptEvent?.Transcript?.Results ?? []) {
          if (result.IsPartial) continue;
          const best = result.Alternatives?.[0];
          if (best?.Transcript) finals.push(best.Transcript);
          for (const item of best?.Items ?? [])
            if (typeof item.Confidence === 'number') confidences.push(item.Confidence);
        }
      }
      const text = finals.join(' ').trim();
      const confidence = confidences.length
        ? confidences.reduce((a, b) => a + b, 0) / confidences.length
        : undefined;
      return { text, provider: this.name, ...(confidence === undefined ? {} : { confidence }) };
    } catch (error) {
      throw new SpeechUnavailableError(`Amazon Transcribe failed: ${errorMessage(error)}`, { cause: error });
    }
  }

  async speak(text: string, options: SpeakOptions): Promise<Buffer> {
    const { SynthesizeSpeechCommand } = await import('@aws-sdk/client-polly');
    try {
      const client = await clientOf(this.pollyClient);
      const response = await client.send(
        new SynthesizeSpeechCommand({
          Text: text,
          VoiceId: (options.voice ?? DEFAULT_VOICE) as 'Joanna',
          Engine: 'neural',
          OutputFormat: 'pcm',
          SampleRate: String(SPEECH_SAMPLE_RATE),
          TextType: 'text',
        }),
      );
      if (!response.AudioStream) throw new Error('Polly returned no audio');
      return encodeWav(Buffer.from(await response.AudioStream.transformToByteArray()));
    } catch (error) {
      throw new SpeechUnavailableError(`Amazon Polly failed: ${errorMessage(error)}`, { cause: error });
    }
  }
}
