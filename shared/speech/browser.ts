/** The `browser` provider: the page hears and speaks with its own Web Speech engines. */
import { InvalidInputError } from '../errors/index.ts';
import type { ProviderStatus, SpeechProvider, Transcript } from './provider.ts';

const IN_THE_PAGE =
  'HANDOFF_SPEECH_PROVIDER=browser: the page hears and speaks with its own engines; the server does not';

/** Says so when asked to do the page's work. */
export class BrowserSpeech implements SpeechProvider {
  readonly name = 'browser' as const;

  async status(): Promise<ProviderStatus> {
    return { name: this.name, usable: true, detail: "the browser's own Web Speech engines, in the page" };
  }

  async transcribe(): Promise<Transcript> {
    throw new InvalidInputError(IN_THE_PAGE);
  }

  async speak(): Promise<Buffer> {
    throw new InvalidInputError(IN_THE_PAGE);
  }
}
