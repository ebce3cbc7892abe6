/**
 * The deployment does its main job, run from the synthesized template: every function runs
 * its real bundle with only the environment and the IAM policy the template gives it, the
 * AWS calls it makes are authorised as IAM would (test/aws/deployment/gateway.ts), DynamoDB
 * Local holds the table and Dovecot the mailbox. Both synth variants: the default (Bedrock,
 * answered by the offline model behind Bedrock's wire format) and modelProvider=local. The
 * stack is bundled once for both (its bundles do not depend on its parameters); each variant
 * is its own template, table and mailbox on the same servers.
 */
import { afterAll, beforeAll, describe } from '@jest/globals';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';
import { startDovecot, type Dovecot } from '../support/dovecot.ts';
import { apiJourneys } from './deployment/api-journeys.ts';
import { cliScheduleJourneys } from './deployment/cli-schedules.ts';
import type { Variant } from './deployment/expect.ts';
import { failureJourneys } from './deployment/failures.ts';
import { firstRunJourney, readmeDeployParams } from './deployment/first-run.ts';
import { startHarness, type Harness } from './deployment/harness.ts';

let ddb: Awaited<ReturnType<typeof startDynamoDbLocal>>;
let h: Harness;

beforeAll(async () => {
  [ddb] = await Promise.all([startDynamoDbLocal()]);
  h = await startHarness(ddb.endpoint);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await ddb?.stop();
});

describe.each([
  ['bedrock (the default)', 'bedrock' as const],
  ['local model', 'local' as const],
])('the synthesized template, %s', (name, modelProvider) => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    // The README's `npx cdk deploy` parameters (bundled by the first variant, reused by the second).
    [dovecot] = await Promise.all([startDovecot(), h.deploy(readmeDeployParams(modelProvider))]);
  }, 180_000);
  afterAll(async () => {
    await dovecot?.stop();
  });
  const v: Variant = { name, modelProvider, h: () => h, dovecot: () => dovecot };
  firstRunJourney(v);
  apiJourneys(v);
  failureJourneys(v);
  cliScheduleJourneys(v);
});
