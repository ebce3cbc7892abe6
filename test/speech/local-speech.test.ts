import { describe, expect, it } from '@jest/globals';
import { speakToWav } from '../../bench/speech-fixture.ts';
import { measure } from '../../bench/speech-accuracy.ts';
import { coverage, LocalSpeech } from '../../shared/speech/local.ts';
import { SpeechUnavailableError } from '../../shared/speech/provider.ts';
import { decodeWav } from '../../shared/speech/wav.ts';

describe('the local provider (pocketsphinx held to the Talk vocabulary, espeak-ng)', () => {
  it('hears ≥ 90% of ≥ 30 spoken commands right, acts on no wrong irreversible one, and answers no unrelated sentence', async () => {
    const report = await measure(new LocalSpeech(), 2);
    expect(report.commands).toBeGreaterThanOrEqual(30);
    expect(report.outOfVocabulary).toBeGreaterThanOrEqual(20);
    expect(report.correct / report.commands).toBeGreaterThanOrEqual(0.9);
    expect(report.wrongIrreversible).toBe(0);
    expect(report.heard.filter((h) => h.intent === 'none' && h.got !== 'none')).toEqual([]);
    expect(new Set(report.heard.map((h) => h.voice)).size).toBe(2);
    expect(new Set(report.heard.map((h) => h.speed)).size).toBe(2);
  }, 120_000);

  it('returns an empty transcript, with its low confidence, for a sentence the grammar would force onto a command', async () => {
    const wav = decodeWav(await speakToWav('I think we should get pizza tonight'));
    const forced = await new LocalSpeech({ coverageFloor: 0 }).transcribe(wav, {});
    expect(forced.text).not.toBe(''); // held to the grammar, the recogniser always names some command…
    const heard = await new LocalSpeech().transcribe(wav, {});
    expect(heard).toEqual({ text: '', confidence: forced.confidence, provider: 'local' }); // …so it is rejected
    expect(heard.confidence).toBeLessThan(0.85);
  });

  it('hears nothing in silence', async () => {
    const silence = { sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm: Buffer.alloc(32000) };
    expect((await new LocalSpeech().transcribe(silence, {})).text).toBe('');
    expect(coverage(Buffer.alloc(32000), [{ start: 0, end: 1 }])).toBe(0);
  });

  it('speaks a 16 kHz mono WAV with espeak-ng', async () => {
    const audio = decodeWav(await new LocalSpeech().speak('Archive the newsletter?', {}));
    expect(audio).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(audio.pcm.length).toBeGreaterThan(16000); // more than half a second of speech
  });

  it('says what is missing and how to install it', async () => {
    const local = new LocalSpeech({ modelDir: '/nonexistent/model' });
    expect(await local.status()).toEqual({
      name: 'local',
      usable: false,
      detail:
        'missing the US English model (package pocketsphinx-en-us): apt-get install -y pocketsphinx pocketsphinx-en-us espeak-ng',
    });
    const wav = { sampleRate: 16000, channels: 1, bitsPerSample: 16, pcm: Buffer.alloc(3200) };
    await expect(local.transcribe(wav, {})).rejects.toThrow(SpeechUnavailableError);
    expect(await new LocalSpeech().status()).toMatchObject({ usable: true });
  });
});
