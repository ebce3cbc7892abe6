import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { ENV_VARIABLES, loadEnv } from '../../shared/config/env.ts';
import {
  GROQ_DEFAULT_BASE_URL,
  GROQ_DEFAULT_MODEL_ID,
  PROVIDER_VARIABLES,
} from '../../shared/models/provider.ts';
import { ANTHROPIC_MAX_TOKENS } from '../../shared/models/providers.ts';

/** Named in the docs as read by the AWS SDK, not by Handoff (the profile is exercised in bedrock-region.test.ts). */
const READ_BY_THE_AWS_SDK = [
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
];

async function documented(): Promise<{ text: string; names: Set<string> }> {
  const text = await readFile(new URL('../../docs/providers.md', import.meta.url), 'utf8');
  const names = new Set([...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!));
  return { text, names };
}

describe('docs/providers.md', () => {
  it('names only variables the code reads', async () => {
    const { names } = await documented();
    const read = new Set([...ENV_VARIABLES, ...READ_BY_THE_AWS_SDK]);
    expect([...names].filter((name) => !read.has(name))).toEqual([]);
  });

  it('names every variable the providers read', async () => {
    const { names } = await documented();
    const needed = ['HANDOFF_MODEL_PROVIDER', 'AWS_DEFAULT_REGION', ...PROVIDER_VARIABLES];
    expect(needed.filter((name) => !names.has(name))).toEqual([]);
    for (const name of PROVIDER_VARIABLES) expect(ENV_VARIABLES).toContain(name);
  });

  it('states the defaults the code has', async () => {
    const { text } = await documented();
    expect(text).toContain(`\`${GROQ_DEFAULT_BASE_URL}\``);
    expect(text).toContain(`\`${GROQ_DEFAULT_MODEL_ID}\``);
    expect(text).toContain(ANTHROPIC_MAX_TOKENS.toLocaleString('en-US'));
    expect(loadEnv({}).HANDOFF_MODEL_PROVIDER).toBe('local');
    expect(loadEnv({ AWS_DEFAULT_REGION: 'eu-central-1' }).AWS_REGION).toBe('eu-central-1');
  });
});
