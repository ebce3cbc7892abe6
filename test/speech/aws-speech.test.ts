import { PollyClient, SynthesizeSpeechCommand } from '@aws-sdk/client-polly';
import {
  StartStreamTranscriptionCommand,
  TranscribeStreamingClient,
  type AudioStream,
  type StartStreamTranscriptionCommandInput,
  type TranscriptResultStream,
} from '@aws-sdk/client-transcribe-streaming';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AwsSpeech, CHUNK_BYTES } from '../../shared/speech/aws-speech.ts';
import { SpeechUnavailableError } from '../../shared/speech/provider.ts';
import { decodeWav } from '../../shared/speech/wav.ts';

const transcribe = mockClient(TranscribeStreamingClient);
const polly = mockClient(PollyClient);
afterEach(() => {
  transcribe.reset();
  polly.reset();
});

function speech() {
  return new AwsSpeech({
    region: 'eu-west-1',
    transcribe: new TranscribeStreamingClient({ region: 'eu-west-1' }),
    polly: new PollyClient({ region: 'eu-west-1' }),
  });
}

async function* results(...events: TranscriptResultStream[]): AsyncGenerator<TranscriptResultStream> {
  yield* events;
}

const final = (text: string, confidences: number[]): TranscriptResultStream => ({
  TranscriptEvent: {
    Transcript: {
      Results: [
        {
          IsPartial: false,
          Alternatives: [{ Transcript: text, Items: confidences.map((c) => ({ Confidence: c })) }],
        },
      ],
    },
  },
});

describe('the aws provider', () => {
  it('streams the PCM to Transcribe in 100 ms chunks at 16 kHz, pcm, en-US, and reads the final results', async () => {
    const chunks: Uint8Array[] = [];
    let input: StartStreamTranscriptionCommandInput | undefined;
    transcribe
      .on(StartStreamTranscriptionCommand)
      .callsFake(async (given: StartStreamTranscriptionCommandInput) => {
        input = given;
        for await (const event of given.AudioStream as AsyncIterable<AudioStream>)
          if (event.AudioEvent?.AudioChunk) chunks.push(event.AudioEvent.AudioChunk);
        return {
          TranscriptResultStream: results(
            {
              TranscriptEvent: {
                Transcript: { Results: [{ IsPartial: true, Alternatives: [{ Transcript: 'arch' }] }] },
              },
            },
            final('Archive it.', [0.9, 0.7]),
          ),
        };
      });
    const pcm = Buffer.alloc(16_000 * 2 + 1000, 3); // 1 s and a bit
    const heard = await speech().transcribe({ sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm }, {});

    expect(heard).toEqual({ text: 'Archive it.', provider: 'aws', confidence: 0.8 });
    expect(input).toMatchObject({ LanguageCode: 'en-US', MediaSampleRateHertz: 16000, MediaEncoding: 'pcm' });
    expect(CHUNK_BYTES).toBe(3200);
    expect(chunks.map((c) => c.length)).toEqual([...Array(10).fill(3200), 1000]);
    expect(Buffer.concat(chunks).equals(pcm)).toBe(true);
    expect(transcribe.commandCalls(StartStreamTranscriptionCommand)).toHaveLength(1);
  });

  it('passes the language it is asked for', async () => {
    transcribe.on(StartStreamTranscriptionCommand).resolves({ TranscriptResultStream: results() });
    const heard = await speech().transcribe(
      { sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm: Buffer.alloc(3200) },
      { language: 'en-GB' },
    );
    expect(heard).toEqual({ text: '', provider: 'aws' });
    expect(transcribe.commandCalls(StartStreamTranscriptionCommand)[0]!.args[0].input.LanguageCode).toBe(
      'en-GB',
    );
  });

  it('asks Polly for a neural voice as 16 kHz PCM and frames it as WAV', async () => {
    const pcm = Buffer.alloc(6400, 9);
    polly.on(SynthesizeSpeechCommand).resolves({
      // What the SDK hands back: a stream with its helpers (only transformToByteArray is read).
      AudioStream: { transformToByteArray: async () => new Uint8Array(pcm) } as never,
      ContentType: 'audio/pcm',
    });
    const wav = await speech().speak('Archive the newsletter?', {});
    expect(polly.commandCalls(SynthesizeSpeechCommand)[0]!.args[0].input).toEqual({
      Text: 'Archive the newsletter?',
      VoiceId: 'Joanna',
      Engine: 'neural',
      OutputFormat: 'pcm',
      SampleRate: '16000',
      TextType: 'text',
    });
    const back = decodeWav(wav);
    expect(back).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(back.pcm.equals(pcm)).toBe(true);
  });

  it('says in one line when AWS is down, as a provider that is unavailable', async () => {
    transcribe
      .on(StartStreamTranscriptionCommand)
      .rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailableException' }));
    polly
      .on(SynthesizeSpeechCommand)
      .rejects(new Error('The security token included in the request is invalid'));
    const wav = { sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm: Buffer.alloc(3200) };
    await expect(speech().transcribe(wav, {})).rejects.toThrow(SpeechUnavailableError);
    await expect(speech().transcribe(wav, {})).rejects.toThrow(
      'Amazon Transcribe failed: Service unavailable',
    );
    await expect(speech().speak('hi', {})).rejects.toThrow(
      'Amazon Polly failed: The security token included in the request is invalid',
    );
  });

  it('is usable only with a region', async () => {
    expect(await speech().status()).toMatchObject({ name: 'aws', usable: true });
    expect(await new AwsSpeech({}).status()).toMatchObject({
      usable: false,
      detail: expect.stringContaining('AWS_REGION'),
    });
  });
});
