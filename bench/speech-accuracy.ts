/**
 * Runs the fixed speech set through a provider and the intent parser: which answers it
 * gave, which were wrong, how long each took. `npm run bench:speech` prints it; the
 * accuracy test holds it to its floor.
 */
import { parseIntent, vocabulary } from '../shared/speech/intents.ts';
import type { SpeechProvider } from '../shared/speech/provider.ts';
import { decodeWav } from '../shared/speech/wav.ts';
import { speakToWav, utterances, type Utterance } from './speech-fixture.ts';

/** The options of the Talk page's usual decision, with `delete` irreversible. */
export const BENCH_OPTIONS = ['file_ticket', 'archive', 'draft_reply', 'delete', 'approve_suggested', 'skip'];
const IRREVERSIBLE = new Set(['delete']);

export interface Heard extends Utterance {
  transcript: string;
  /** The option or control the parser read, or `none`. */
  got: string;
  ms: number;
}

export interface AccuracyReport {
  heard: Heard[];
  commands: number;
  correct: number;
  /** Commands read as another intent (not merely rejected). */
  wrong: number;
  /** Irreversible answers that were not what was said. */
  wrongIrreversible: number;
  outOfVocabulary: number;
  /** Out-of-vocabulary sentences that answered something. */
  falseAnswers: number;
}

function intentOf(text: string): string {
  const intent = parseIntent(text, { options: BENCH_OPTIONS, irreversible: IRREVERSIBLE });
  return intent.kind === 'answer' ? intent.action : intent.kind;
}

/** Speaks every utterance of the set and hears it with `provider`, `parallel` at a time. */
export async function measure(provider: SpeechProvider, parallel = 2): Promise<AccuracyReport> {
  const set = utterances();
  const heard: Heard[] = new Array(set.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < set.length; i = next++) {
      const u = set[i]!;
      const wav = decodeWav(await speakToWav(u.text, u.voice, u.speed));
      const started = performance.now();
      const result = await provider.transcribe(wav, { vocabulary: vocabulary(BENCH_OPTIONS) });
      heard[i] = {
        ...u,
        transcript: result.text,
        got: intentOf(result.text),
        ms: performance.now() - started,
      };
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const commands = heard.filter((h) => h.intent !== 'none');
  const oov = heard.filter((h) => h.intent === 'none');
  return {
    heard,
    commands: commands.length,
    correct: commands.filter((h) => h.got === h.intent).length,
    wrong: commands.filter((h) => h.got !== h.intent && h.got !== 'none').length,
    wrongIrreversible: heard.filter((h) => IRREVERSIBLE.has(h.got) && h.got !== h.intent).length,
    outOfVocabulary: oov.length,
    falseAnswers: oov.filter((h) => h.got !== 'none').length,
  };
}
