/**
 * The functions that hold the most (api and webhook: every page and route; the agent: the
 * learner and the assistant), bundled as the stack does (lib/bundle.ts): what a cold start
 * loads stays under the 1.2 MB budget, with the assistant, the speech providers and the
 * OpenAPI document loaded on first use.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { bundleEntry, handlerEntry, loadedAtImport } from '../../lib/bundle.ts';
import { tempOutdir } from './fixture.ts';

const BUDGET_BYTES = 1.2 * 1024 * 1024;
const ON_FIRST_USE = [
  'shared/speech/local.ts',
  'shared/speech/aws-speech.ts',
  'shared/assistant/assistant.ts',
  'shared/web/openapi.ts',
];

describe('the api and webhook bundles', () => {
  for (const name of ['api', 'webhook']) {
    it(`${name}: under 1.2 MB at import, the assistant, speech and OpenAPI document on first use`, async () => {
      const outdir = tempOutdir();
      try {
        const metafile = await bundleEntry(handlerEntry(name), outdir);
        const loaded = loadedAtImport(metafile);
        expect(loaded.bytes).toBeLessThan(BUDGET_BYTES);
        const eager = loaded.files.flatMap((f) => Object.keys(metafile.outputs[f]?.inputs ?? {}));
        const lazy = Object.entries(metafile.outputs)
          .filter(([f]) => !loaded.files.includes(f))
          .flatMap(([, o]) => Object.keys(o.inputs));
        for (const source of ON_FIRST_USE) {
          expect({ source, eager: eager.includes(source) }).toEqual({ source, eager: false });
          expect({ source, lazy: lazy.includes(source) }).toEqual({ source, lazy: true });
        }
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});

describe('the agent bundle', () => {
  it('agent: under 1.2 MB at import, the assistant loaded with the first turn (a container that only learns never loads it)', async () => {
    const outdir = tempOutdir();
    try {
      const metafile = await bundleEntry(handlerEntry('agent'), outdir);
      const loaded = loadedAtImport(metafile);
      expect(loaded.bytes).toBeLessThan(BUDGET_BYTES);
      const eager = loaded.files.flatMap((f) => Object.keys(metafile.outputs[f]?.inputs ?? {}));
      for (const source of ['shared/assistant/turn-once.ts', 'shared/assistant/assistant.ts'])
        expect({ source, eager: eager.includes(source) }).toEqual({ source, eager: false });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
