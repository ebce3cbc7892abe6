import fs from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';

describe('docs/handoffs.md', () => {
  it('every example region appears verbatim in the guide', async () => {
    const squash = (code: string) =>
      code
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join('\n');
    const source = await fs.readFile(new URL('./examples.test.ts', import.meta.url), 'utf8');
    const guide = squash(await fs.readFile(new URL('../../docs/handoffs.md', import.meta.url), 'utf8'));
    const regions = [...source.matchAll(/\/\/ docs:begin (\S+)\n([\s\S]*?)\n\s*\/\/ docs:end/g)];
    expect(regions.map((r) => r[1])).toEqual([
      'imports',
      'llm',
      'route',
      'filters',
      'typed',
      'resume-agents',
      'resume',
    ]);
    for (const [, name, code] of regions) {
      const body = squash(code!).replace("'../../shared/handoffs/index.ts'", "'./shared/handoffs/index.ts'");
      expect({ region: name, guide }).toEqual({ region: name, guide: expect.stringContaining(body) });
    }
  });
});
