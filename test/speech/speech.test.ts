import { describe, expect, it } from '@jest/globals';
import type { SpeechProvider } from '../../shared/speech/provider.ts';
import { createSpeech, MAX_SPEAK_CHARS } from '../../shared/speech/speech.ts';
import { encodeWav } from '../../shared/speech/wav.ts';

/** A provider that records what it was handed (the facade's own checks are under test, not a provider). */
function recorder(name: SpeechProvider['name']) {
  const calls: string[] = [];
  const provider: SpeechProvider = {
    name,
    transcribe: async (wav) => (
      calls.push(`transcribe ${wav.pcm.length}`),
      { text: 'archive it', provider: name }
    ),
    speak: async (text) => (calls.push(`speak ${text}`), encodeWav(Buffer.alloc(2))),
    status: async () => ({ name, usable: true, detail: 'test' }),
  };
  return { provider, calls };
}

describe('the speech facade', () => {
  it('uses the provider HANDOFF_SPEECH_PROVIDER names', async () => {
    const groq = recorder('groq');
    const local = recorder('local');
    const speech = createSpeech(
      { HANDOFF_SPEECH_PROVIDER: 'groq', GROQ_BASE_URL: 'http://127.0.0.1:9/v1' },
      { groq: groq.provider, local: local.provider },
    );
    expect(speech.provider).toBe('groq');
    expect(await speech.transcribe(encodeWav(Buffer.alloc(3200)))).toEqual({
      text: 'archive it',
      provider: 'groq',
    });
    await speech.speak('  Archive it?  ');
    expect(groq.calls).toEqual(['transcribe 3200', 'speak Archive it?']);
    expect(local.calls).toEqual([]);
    const status = await speech.status();
    expect(status.provider).toBe('groq');
    expect(status.providers.map((p) => p.name)).toEqual(['local', 'aws', 'groq', 'browser']);
  });

  it('refuses bad audio and bad text before any provider is called', async () => {
    const local = recorder('local');
    const speech = createSpeech(
      { HANDOFF_SPEECH_PROVIDER: 'local', GROQ_BASE_URL: 'http://x/v1' },
      { local: local.provider },
    );
    await expect(speech.transcribe(Buffer.from('not audio'))).rejects.toThrow('not a WAV file');
    await expect(speech.transcribe(encodeWav(Buffer.alloc(0)))).rejects.toThrow('the recording is empty');
    await expect(speech.speak('   ')).rejects.toThrow('there is no text to speak');
    await expect(speech.speak('a'.repeat(MAX_SPEAK_CHARS + 1))).rejects.toThrow('at most 3000');
    expect(local.calls).toEqual([]);
  });

  it('with the browser provider, says the page does the hearing and speaking', async () => {
    const speech = createSpeech({ HANDOFF_SPEECH_PROVIDER: 'browser', GROQ_BASE_URL: 'http://x/v1' });
    await expect(speech.transcribe(encodeWav(Buffer.alloc(3200)))).rejects.toThrow(
      'the page hears and speaks',
    );
  });
});
