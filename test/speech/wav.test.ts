import { describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { decodeWav, encodeWav, readSpeechWav } from '../../shared/speech/wav.ts';

const tone = (samples: number) => {
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), i * 2);
  return pcm;
};

describe('WAV framing', () => {
  it('writes a canonical 44-byte header whose fields describe 16 kHz mono 16-bit PCM', () => {
    const pcm = tone(1600);
    const file = encodeWav(pcm);
    expect(file.length).toBe(44 + pcm.length);
    expect(file.toString('ascii', 0, 4)).toBe('RIFF');
    expect(file.readUInt32LE(4)).toBe(36 + pcm.length);
    expect(file.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(file.readUInt32LE(16)).toBe(16);
    expect(file.readUInt16LE(20)).toBe(1); // PCM
    expect(file.readUInt16LE(22)).toBe(1); // mono
    expect(file.readUInt32LE(24)).toBe(16000);
    expect(file.readUInt32LE(28)).toBe(32000); // byte rate
    expect(file.readUInt16LE(32)).toBe(2); // block align
    expect(file.readUInt16LE(34)).toBe(16);
    expect(file.toString('ascii', 36, 40)).toBe('data');
    expect(file.readUInt32LE(40)).toBe(pcm.length);
  });

  it('round-trips the samples exactly', () => {
    const pcm = tone(4801);
    const back = decodeWav(encodeWav(pcm, 16000));
    expect(back).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(Buffer.compare(back.pcm, pcm)).toBe(0);
  });

  it('drops an odd trailing byte rather than framing half a sample', () => {
    const pcm = Buffer.concat([tone(10), Buffer.from([0x7f])]);
    const file = encodeWav(pcm);
    expect(file.readUInt32LE(40)).toBe(20);
    expect(decodeWav(file).pcm.length).toBe(20);
  });

  it('skips odd-sized chunks before the data (with their pad byte) and reads a data size past the end to the end', () => {
    const pcm = tone(100);
    const canonical = encodeWav(pcm);
    const list = Buffer.concat([
      Buffer.from('LIST'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc'),
      Buffer.from([0]),
    ]);
    const withList = Buffer.concat([canonical.subarray(0, 36), list, canonical.subarray(36)]);
    withList.writeUInt32LE(withList.length - 8, 4);
    expect(Buffer.compare(decodeWav(withList).pcm, pcm)).toBe(0);

    const streamed = Buffer.from(canonical);
    streamed.writeUInt32LE(0xffffffff, 40); // a recorder that never went back to fill the size in
    expect(decodeWav(streamed).pcm.length).toBe(pcm.length);
  });

  it('refuses a file that is not WAV with one line', () => {
    for (const upload of [
      Buffer.from('ID3\u0004 an mp3'),
      Buffer.alloc(0),
      Buffer.from('{"text":"archive it"}'),
    ]) {
      expect(() => decodeWav(upload)).toThrow(InvalidInputError);
      expect(() => decodeWav(upload)).toThrow(/^the audio is not a WAV file \(expected RIFF\/WAVE/);
    }
  });

  it('refuses compressed WAV, a wrong sample rate, stereo, an empty and an overlong recording', () => {
    const compressed = encodeWav(tone(10));
    compressed.writeUInt16LE(85, 20);
    expect(() => readSpeechWav(compressed)).toThrow('compressed');
    expect(() => readSpeechWav(encodeWav(tone(4410), 44100))).toThrow(
      'the audio is 44100 Hz, 1 channel, 16-bit; send 16000 Hz mono 16-bit PCM',
    );
    expect(() => readSpeechWav(encodeWav(tone(3200), 16000, 2))).toThrow('2 channels');
    expect(() => readSpeechWav(encodeWav(Buffer.alloc(0)))).toThrow('the recording is empty');
    expect(() => readSpeechWav(encodeWav(Buffer.alloc(31 * 32000)))).toThrow(
      'the recording is 31 s long; speech takes at most 30 s',
    );
    expect(readSpeechWav(encodeWav(Buffer.alloc(30 * 32000))).pcm.length).toBe(960000);
  });
});
