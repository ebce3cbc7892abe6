import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../../shared/config/env.ts';
import { modelFactory } from '../../../shared/models/provider.ts';
import type { ResilientModel } from '../../../shared/models/resilient-model.ts';

const AWS_NAMES = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
];
let saved: Record<string, string | undefined>;
let dir: string;

beforeEach(async () => {
  saved = Object.fromEntries(AWS_NAMES.map((name) => [name, process.env[name]]));
  for (const name of AWS_NAMES) delete process.env[name];
  dir = await mkdtemp(path.join(tmpdir(), 'handoff-region-'));
  // A profile with a region, as `aws configure --profile dev` writes it; no credentials file.
  const config = path.join(dir, 'config');
  await writeFile(config, '[profile dev]\nregion = ap-southeast-2\n');
  process.env.AWS_CONFIG_FILE = config;
  process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(dir, 'credentials');
  process.env.AWS_PROFILE = 'dev';
});

afterEach(async () => {
  for (const name of AWS_NAMES)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  await rm(dir, { recursive: true, force: true });
});

/** The region the Bedrock client of the primary model resolves, from the environment `source`. */
async function bedrockRegion(source: NodeJS.ProcessEnv): Promise<string> {
  const env = loadEnv({
    ...source,
    HANDOFF_MODEL_PROVIDER: 'bedrock',
    HANDOFF_MODEL_ID: 'amazon.nova-lite-v1:0',
  });
  const model = (await modelFactory(env)('primary')) as ResilientModel;
  const client = (model.inner as unknown as { _client: BedrockRuntimeClient })._client;
  return client.config.region();
}

describe('bedrock region: the AWS SDK resolves it unless the person set one', () => {
  it("takes the profile's region when neither AWS_REGION nor AWS_DEFAULT_REGION is set", async () => {
    expect(loadEnv({}).AWS_REGION).toBeUndefined();
    expect(await bedrockRegion({})).toBe('ap-southeast-2');
  });

  it('takes AWS_DEFAULT_REGION over the profile when AWS_REGION is unset, as the AWS CLI does', async () => {
    expect(await bedrockRegion({ AWS_DEFAULT_REGION: 'eu-central-1' })).toBe('eu-central-1');
  });

  it('lets an explicit AWS_REGION win over AWS_DEFAULT_REGION and the profile', async () => {
    expect(await bedrockRegion({ AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-central-1' })).toBe(
      'us-west-2',
    );
  });
});
