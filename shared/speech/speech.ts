/**
 * `handoff.speech`: one facade — transcribe(), speak(), status() — over the provider
 * chosen by HANDOFF_SPEECH_PROVIDER (local, aws, groq, browser).
 */
import { InvalidInputError } from '../errors/index.ts';
import {
  SPEECH_PROVIDERS,
  type ProviderStatus,
  type SpeakOptions,
  type SpeechProvider,
  type SpeechProviderName,
  type TranscribeOptions,
  type Transcript,
} from './provider.ts';
import { readSpeechWav } from './wav.ts';

/** The longest text spoken in one request (Polly's own limit). */
export const MAX_SPEAK_CHARS = 3000;

export interface SpeechConfig {
  HANDOFF_SPEECH_PROVIDER: SpeechProviderName;
  AWS_REGION?: string | undefined;
  GROQ_API_KEY?: string | undefined;
  GROQ_BASE_URL: string;
}

export interface SpeechStatus {
  /** The provider in use. */
  provider: SpeechProviderName;
  providers: ProviderStatus[];
}

/** The facade the API and the Talk page use. */
export interface Speech {
  readonly provider: SpeechProviderName;
  /** A WAV upload (16 kHz mono 16-bit, ≤ 30 s) to text; bad audio is refused with one line. */
  transcribe(wav: Buffer, options?: TranscribeOptions): Promise<Transcript>;
  /** Text to a 16 kHz mono 16-bit WAV file. */
  speak(text: string, options?: SpeakOptions): Promise<Buffer>;
  status(): Promise<SpeechStatus>;
}

/** Builds the facade; `providers` replaces any of the four (tests pass clients of their own). */
export function createSpeech(
  config: SpeechConfig,
  providers: Partial<Record<SpeechProviderName, SpeechProvider>> = {},
): Speech {
  const made = new Map<SpeechProviderName, SpeechProvider>();
  const providerFor = async (name: SpeechProviderName): Promise<SpeechProvider> => {
    let provider = providers[name] ?? made.get(name);
    if (!provider) {
      provider = await makeProvider(name, config);
      made.set(name, provider);
    }
    return provider;
  };
  const chosen = config.HANDOFF_SPEECH_PROVIDER;
  return {
    provider: chosen,
    async transcribe(wav, options = {}) {
      return (await providerFor(chosen)).transcribe(readSpeechWav(wav), options);
    },
    async speak(text, options = {}) {
      const words = text.trim();
      if (words === '') throw new InvalidInputError('there is no text to speak: send {"text": "…"}');
      if (words.length > MAX_SPEAK_CHARS)
        throw new InvalidInputError(
          `the text is ${words.length} characters; speech takes at most ${MAX_SPEAK_CHARS}`,
        );
      return (await providerFor(chosen)).speak(words, options);
    },
    async status() {
      const all: SpeechProvider[] = [];
      for (const name of SPEECH_PROVIDERS) all.push(await providerFor(name)); // modules load one at a time
      return { provider: chosen, providers: await Promise.all(all.map((p) => p.status())) };
    },
  };
}

/** A provider, its module loaded on first use (a function serving one provider loads only it). */
async function makeProvider(name: SpeechProviderName, config: SpeechConfig): Promise<SpeechProvider> {
  if (name === 'aws') return new (await import('./aws-speech.ts')).AwsSpeech({ region: config.AWS_REGION });
  if (name === 'groq')
    return new (await import('./groq.ts')).GroqSpeech({
      apiKey: config.GROQ_API_KEY,
      baseUrl: config.GROQ_BASE_URL,
    });
  if (name === 'browser') return new (await import('./browser.ts')).BrowserSpeech();
  return new (await import('./local.ts')).LocalSpeech();
}
