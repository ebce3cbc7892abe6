/**
 * `npm run bench:speech`: the local provider's accuracy on the fixed set (Talk commands
 * spoken by espeak-ng in two voices at two speeds, and unrelated sentences) and its
 * latency per utterance.
 */
import { LocalSpeech } from '../shared/speech/local.ts';
import { measure } from './speech-accuracy.ts';

const report = await measure(new LocalSpeech(), 1);
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;
const ms = report.heard.map((h) => h.ms).sort((a, b) => a - b);
const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!);

for (const h of report.heard)
  console.log(
    `${h.intent === h.got ? 'ok ' : h.got === 'none' ? '-- ' : 'BAD'} ${h.voice.padEnd(8)} ${String(h.speed)} ${String(Math.round(h.ms)).padStart(5)} ms  "${h.text}" → ${h.got}`,
  );
console.log('');
console.log(
  `commands: ${report.correct}/${report.commands} correct (${pct(report.correct, report.commands)}), ${report.wrong} wrong, ${report.wrongIrreversible} wrong irreversible`,
);
console.log(`out of vocabulary: ${report.falseAnswers}/${report.outOfVocabulary} answered something`);
console.log(
  `latency per utterance: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms (one at a time)`,
);
