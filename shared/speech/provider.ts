/** The port every speech provider implements, and what the facade hands back. */
import { HandoffError } from '../errors/index.ts';
import type { Wav } from './wav.ts';

export const SPEECH_PROVIDERS = ['local', 'aws', 'groq', 'browser'] as const;
export type SpeechProviderName = (typeof SPEECH_PROVIDERS)[number];

export interface TranscribeOptions {
  /** BCP 47, default `en-US`. */
  language?: string;
  /** Phrases the person is expected to say; a recogniser that can be held to them is. */
  vocabulary?: readonly string[];
}

export interface Transcript {
  /** What was said; empty when nothing was recognised with confidence. */
  text: string;
  /** In [0, 1], when the provider gives one. */
  confidence?: number;
  provider: SpeechProviderName;
}

export interface SpeakOptions {
  voice?: string;
}

export interface ProviderStatus {
  name: SpeechProviderName;
  usable: boolean;
  /** Why it is not usable and how to fix that; or what it runs on. */
  detail: string;
}

/** One way to hear and speak. `speak` returns a 16 kHz mono 16-bit WAV file. */
export interface SpeechProvider {
  readonly name: SpeechProviderName;
  transcribe(audio: Wav, options: TranscribeOptions): Promise<Transcript>;
  speak(text: string, options: SpeakOptions): Promise<Buffer>;
  status(): Promise<ProviderStatus>;
}

/** The provider cannot be reached or refused the request: the API answers 503 with this line. */
export class SpeechUnavailableError extends HandoffError {}
