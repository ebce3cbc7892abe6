/**
 * The deployment does its main job, run from the synthesized template: every function runs
 * its real bundle with only the environment and the IAM policy the template gives it, the
 * AWS calls it makes are authorised as IAM would (test/aws/deployment/gateway.ts), DynamoDB
 * Local holds the table and Dovecot the mailbox. Both synth variants: the default (Bedrock,
 * answered by the offline model behind Bedrock's wire format) and modelProvider=local.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_MESSAGES, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../shared/sources/maildir/generate.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, startDovecot, type Dovecot } from '../support/dovecot.ts';
import { startHarness, type Harness } from './deployment/harness.ts';
import type { Template } from './deployment/template.ts';

const SCHEDULE = 'cron(0 8 * * ? *)';
const FIRED_AT = new Date('2026-03-02T08:00:00Z');

let ddb: Awaited<ReturnType<typeof startDynamoDbLocal>>;
let dovecot: Dovecot;

beforeAll(async () => {
  [ddb, dovecot] = await Promise.all([startDynamoDbLocal(), startDovecot()]);
  await dovecot.append(DEMO_MESSAGES.map((m) => renderMessage(m)));
}, 60_000);
afterAll(async () => {
  await dovecot?.stop();
  await ddb?.stop();
});

/** The demo workflow on the Dovecot mailbox, scheduled, its password under `credential`. */
function inboxYaml(id: string, credential: string): string {
  return demoWorkflowYaml('/unused')
    .replace(/^id: .*$/m, `id: ${id}`)
    .replace('trigger: { manual: true }', `trigger: { schedule: "${SCHEDULE}" }`)
    .replace(
      /^source: .*$/m,
      `source: { type: imap, host: 127.0.0.1, port: ${dovecot.port}, tls: false, user: ${DOVECOT_USER}, credential: ${credential} }`,
    );
}

/** Every call a function made that its IAM policy did not allow, as one line each. */
function refusals(h: Harness): string[] {
  return h.gateway.refusals.map(
    (r) =>
      `${r.principal} was refused ${r.action} on ${r.resource}: the template's policy for it does not allow it`,
  );
}

/** Each function's failed invocations (after Lambda's retries), with the error and the function's log. */
function failures(h: Harness): string[] {
  return h.cloud.failures.map((f) => `${f.fn}: ${f.error}`);
}

/** Fails naming each function and permission a deployment would have lacked. */
function expectDeployable(h: Harness): void {
  expect({ refusals: refusals(h), failures: failures(h) }).toEqual({ refusals: [], failures: [] });
}

describe.each([
  ['bedrock (the default)', { modelProvider: 'bedrock' as const }],
  ['local model', { modelProvider: 'local' as const }],
])('the synthesized template, %s', (_variant, props) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(props, ddb.endpoint);
  }, 180_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('a scheduled IMAP run: the password sealed from the terminal, the workflow saved over the signed API, the schedule fires, the run pauses and SNS carries the link', async () => {
    // README: store the mailbox password, sealed with the stack's key.
    const sealed = await h.cli(
      ['credentials', 'set', 'MAIL_PASSWORD'],
      {
        USE_DYNAMODB: 'true',
        HANDOFF_TABLE: h.outputs.TableName!,
        HANDOFF_KMS_KEY_ID: h.outputs.CredentialsKeyArn!,
      },
      DOVECOT_PASSWORD,
    );
    expect(sealed.stderr).not.toMatch(/^handoff:/m);
    expect(await h.store.get('credentials', 'MAIL_PASSWORD')).toMatchObject({ sealed: { alg: 'aws-kms' } });
    expect(h.gateway.kmsCalls).toEqual([{ by: 'operator', action: 'Encrypt' }]);
    const saved = await h.api(
      'PUT',
      '/admin/api/workflows/inbox-triage',
      inboxYaml('inbox-triage', 'MAIL_PASSWORD'),
      'application/yaml',
    );
    expect(saved.status).toBe(201);
    await h.cloud.drain(); // handoff.workflow → schedule-sync → CreateSchedule
    const group = 'handoff-dev';
    expect(h.gateway.schedules.get(`${group}/inbox-triage`)).toMatchObject({
      expression: SCHEDULE,
      state: 'ENABLED',
    });

    const before = h.gateway.dynamo.length;
    const fired = await h.cloud.fire(group, 'inbox-triage', FIRED_AT);
    expect(fired).toMatchObject({ ok: true, result: { status: 'running' } });
    await h.cloud.drain(); // executor
    expectDeployable(h);
    const asked = h.gateway.published.filter((p) => p.by === 'executor');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain(`${h.apiUrl}/decide/`);
    const requests = h.gateway.dynamo.slice(before);
    const byFunction = new Map<string, number>();
    for (const r of requests) byFunction.set(r.by, (byFunction.get(r.by) ?? 0) + 1);
    const summary = [...byFunction].map(([fn, n]) => `${fn} ${n}`).join(', ');
    console.info(`scheduled run (${props.modelProvider}): ${requests.length} DynamoDB requests (${summary})`);
    expect(requests.length).toBeGreaterThan(0);
  });

  it('the answer from the signed link is saved at once; the last answer resumes the run; learning runs in the agent function', async () => {
    const link = h.gateway.published
      .find((p) => p.by === 'executor')!
      .message.match(/https?:\/\/\S+\/decide\/\S+/)![0];
    const url = new URL(link);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const id = decodeURIComponent(url.pathname.split('/').pop()!);
    const token = url.searchParams.get('token')!;
    const answered = await fetch(new URL(`/decide/${encodeURIComponent(id)}`, h.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, action: 'skip', note: 'not for me' }).toString(),
      redirect: 'manual',
    });
    expect(answered.status).toBeLessThan(400);
    // The rest over the signed API, as another system would answer.
    const pending = (await (await h.api('GET', '/admin/api/pending')).json()) as {
      decision_id: string;
      options: string[];
    }[];
    for (const d of pending) {
      const res = await h.api(
        'POST',
        `/admin/api/decisions/${encodeURIComponent(d.decision_id)}`,
        JSON.stringify({ action: 'skip' }),
      );
      expect(res.status).toBe(200);
    }
    // The API made no model call: learning was sent to the agent function.
    const learn = h.gateway.events.filter((e) => e.detailType === 'handoff.learn');
    expect(learn.length).toBe(pending.length + 1);
    expect(learn.every((e) => e.by === 'api')).toBe(true);
    await h.cloud.drain(); // resume → completer; the learning events → agent
    expectDeployable(h);
    expect(h.gateway.published.some((p) => p.by === 'completer')).toBe(true);
    if (props.modelProvider === 'bedrock') {
      expect(h.gateway.bedrockCalls.some((c) => c.by === 'agent')).toBe(true);
      expect(h.gateway.bedrockCalls.map((c) => c.by).filter((by) => by === 'api')).toEqual([]);
    }
    const rules = await h.store.list('rules');
    expect(rules.length).toBeGreaterThan(0);
    expect(await h.store.list('learning_failures')).toEqual([]);
  });

  it('a function whose binding is removed from the template fails, naming the function and the permission it lacked', async () => {
    const t = structuredClone(h.deployment.template) as Template;
    const key = h.deployment.only('AWS::KMS::Key', 'SecretsCredentialsKey');
    const trigger = h.cloud.fn('trigger');
    for (const r of Object.values(t.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      const doc = r.Properties!.PolicyDocument as { Statement: { Resource: unknown }[] };
      const roles = JSON.stringify(r.Properties!.Roles).toLowerCase();
      if (
        !roles.includes(
          trigger.roleArn
            .split('/')
            .pop()!
            .replace(/^[a-z]+-/, ''),
        )
      )
        continue;
      doc.Statement = doc.Statement.filter((st) => !JSON.stringify(st.Resource).includes(key));
    }
    h.redeploy(t);
    await h.cloud.fire('handoff-dev', 'inbox-triage', new Date('2026-03-03T08:00:00Z'));
    expect(() => expectDeployable(h)).toThrow(
      /trigger was refused kms:Decrypt on arn:aws:kms:[^ ]+: the template's policy/,
    );
    h.redeploy(h.built.template.toJSON() as Template);
    h.gateway.refusals.length = 0;
    h.cloud.failures.length = 0;
  });
});
