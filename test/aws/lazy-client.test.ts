/** The clients a function may never need are made on first use, once; a failed load is tried again. */
import { SNSClient } from '@aws-sdk/client-sns';
import { expect, it } from '@jest/globals';
import { lambdaClients } from '../../shared/aws/clients.ts';
import { clientOf, onFirstUse } from '../../shared/aws/lazy-client.ts';

it('makes a client on first use only, keeps it, and tries again after a failure', async () => {
  let attempts = 0;
  const client = new SNSClient({ region: 'us-east-1' });
  const ref = onFirstUse(async () => {
    attempts++;
    if (attempts === 1) throw new Error('the SDK package did not load');
    return client;
  });
  expect(attempts).toBe(0);
  await expect(ref()).rejects.toThrow('did not load');
  expect(await clientOf(ref)).toBe(client);
  expect(await clientOf(ref)).toBe(client);
  expect(attempts).toBe(2);
  expect(await clientOf(client)).toBe(client); // a client passed as is
});

it("gives the engine's functions SNS, Secrets Manager and EventBridge as clients made on first use", async () => {
  const clients = lambdaClients({ AWS_REGION: 'eu-west-1' });
  const sns = await clients.sns();
  expect(sns).toBeInstanceOf(SNSClient);
  expect(await clients.sns()).toBe(sns);
  expect(await sns.config.region()).toBe('eu-west-1');
  expect(typeof (await clients.secrets()).send).toBe('function');
  expect(typeof (await clients.eventBridge()).send).toBe('function');
});
