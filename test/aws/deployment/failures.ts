/**
 * Every failure is told. A run that fails in any function is a `failed` notice on the topic
 * with its reason (from the function itself, or from step-failed once Lambda's retries ran
 * out, in the run's own workspace); a schedule that cannot be made is told the same way;
 * model work the agent function could not do ends in the dead-letter queue, whose alarm
 * publishes to the topic (agent-failures.ts); and a function whose binding is removed from
 * the template fails, naming the function and the permission it lacked.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { DEMO_MESSAGES } from '../../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, startDovecot, type Dovecot } from '../../support/dovecot.ts';
import { agentFailureJourneys } from './agent-failures.ts';
import {
  alarmSubjects,
  eventWorkflowYaml,
  expectDeployable,
  failedNotices,
  imapWorkflowYaml,
  MANUAL,
  runNow,
  save,
  signedHook,
  type Variant,
} from './expect.ts';

/** The demo's newsletter under another Message-ID: the offline model is sure of it (archived, no question). */
function newsletter(id: string): string {
  return renderMessage({ ...DEMO_MESSAGES[0]!, messageId: `<digest-${id}@infraweekly.example>` });
}

/** A message the offline model is unsure of (a person, no known kind): it is asked about. */
export function unsureMessage(id: string): string {
  return renderMessage({
    from: `sam.${id}@partner.example`,
    fromName: 'Sam',
    to: DOVECOT_USER,
    subject: 'Quick question about next quarter',
    body: 'Could we find time to talk about the plans for next quarter? Thanks, Sam',
    date: new Date('2026-03-02T10:00:00Z'),
    messageId: `<unsure-${id}@partner.example>`,
  });
}

export function failureJourneys(v: Variant): void {
  let failbox: Dovecot;
  beforeAll(async () => {
    failbox = await startDovecot();
  });
  afterAll(async () => {
    await failbox?.stop();
  });

  it('a scheduled run whose mailbox password was never stored fails in the trigger, and the topic says why', async () => {
    const h = v.h();
    const from = h.gateway.published.length;
    await save(h, 'unset-box', imapWorkflowYaml(failbox, 'unset-box', 'NEVER_SET_PASSWORD'));
    await h.cloud.fire(h.scheduleGroup, 'unset-box', new Date('2026-03-02T08:00:00Z'));
    await h.cloud.drain();
    expect(failedNotices(h, from)).toEqual([
      { by: 'trigger', message: expect.stringMatching(/run \S+ failed: .*NEVER_SET_PASSWORD/) },
    ]);
  });

  it('a manual run whose trigger fails in the api function is told by the api function', async () => {
    const h = v.h();
    const from = h.gateway.published.length;
    const runId = await runNow(h, 'unset-box');
    await h.cloud.drain();
    expect(failedNotices(h, from)).toEqual([
      { by: 'api', message: expect.stringMatching(new RegExp(`run ${runId} failed: .*NEVER_SET_PASSWORD`)) },
    ]);
  });

  it('a webhook run whose next step cannot be sent (EventBridge refuses the webhook function) is told by the webhook function', async () => {
    const h = v.h();
    await save(h, 'refunds-down', eventWorkflowYaml('refunds-down'));
    const from = h.gateway.published.length;
    h.gateway.outages.add('webhook:events');
    try {
      const body = JSON.stringify({ items: [{ id: 'form-18', subject: 'Refund request', text: 'Broken.' }] });
      const res = await signedHook(
        h,
        'refunds-down',
        body,
        h.gateway.secrets.get(h.outputs.WebhookSecretArn!)!,
      );
      expect(res.status).toBe(202);
    } finally {
      h.gateway.outages.delete('webhook:events');
    }
    expect(failedNotices(h, from)).toEqual([
      { by: 'webhook', message: expect.stringMatching(/failed: .*events is down/) },
    ]);
  });

  it("a schedule that cannot be made (Scheduler refuses schedule-sync) is told with the reason by step-failed, and the function's alarm goes off", async () => {
    const h = v.h();
    const from = h.gateway.published.length;
    h.gateway.outages.add('schedule-sync:scheduler');
    try {
      await save(h, 'unscheduled', imapWorkflowYaml(failbox, 'unscheduled', 'MAIL_PASSWORD'));
    } finally {
      h.gateway.outages.delete('schedule-sync:scheduler');
    }
    expect(h.cloud.failures.splice(0).map((f) => [f.fn, f.destination])).toEqual([
      ['schedule-sync', h.cloud.fn('step-failed').arn],
    ]);
    expect(h.gateway.schedules.has(`${h.scheduleGroup}/unscheduled`)).toBe(false);
    const told = h.gateway.published.slice(from).filter((p) => p.by === 'step-failed');
    expect(told).toEqual([
      expect.objectContaining({
        subject: "Handoff: unscheduled's schedule failed",
        message: expect.stringMatching(/its runs do not start on time .*scheduler is down/),
      }),
    ]);
    expect(alarmSubjects(h, from)).toEqual([`${h.deployment.stackName}-schedule-sync-errors`]);
  });

  it('a completer that keeps failing hands its run to step-failed, which marks it failed and tells, in the run’s own workspace', async () => {
    const h = v.h();
    const table = { USE_DYNAMODB: 'true', HANDOFF_TABLE: h.outputs.TableName! };
    await h.cli(['workspaces', 'add', 'ops'], table);
    await h.cli(
      ['credentials', 'set', 'MAIL_PASSWORD', '--workspace', 'ops'],
      { ...table, HANDOFF_KMS_KEY_ID: h.outputs.CredentialsKeyArn! },
      DOVECOT_PASSWORD,
    );
    await save(h, 'quiet-box', imapWorkflowYaml(failbox, 'quiet-box', 'MAIL_PASSWORD', MANUAL), 'ops');
    await failbox.append([newsletter(v.modelProvider)]);
    const from = h.gateway.published.length;
    h.gateway.outages.add('completer:dynamodb');
    let runId: string;
    try {
      runId = await runNow(h, 'quiet-box', 'ops');
      await h.cloud.drain(); // executor → completer ×3 → step-failed
    } finally {
      h.gateway.outages.delete('completer:dynamodb');
    }
    expect(h.cloud.failures.splice(0).map((f) => [f.fn, f.destination])).toEqual([
      ['completer', h.cloud.fn('step-failed').arn],
    ]);
    const told = failedNotices(h, from);
    expect(told).toEqual([
      {
        by: 'step-failed',
        message: expect.stringMatching(
          new RegExp(`run ${runId} failed: \\S*completer\\S* gave up after 3 attempts: .*dynamodb is down`),
        ),
      },
    ]);
    const ops = await h.workspaceId('ops');
    expect(told[0]!.message).toContain(`/runs/${runId}?workspace=${ops}`);
    expect(await h.storeOf(ops).get('runs', runId)).toMatchObject({ status: 'failed' });
    expect(await h.store.get('runs', runId)).toBeUndefined();
    expect(alarmSubjects(h, from)).toEqual([`${h.deployment.stackName}-completer-errors`]);
    expectDeployable(h);
  });

  it('a resume that keeps failing hands its run to step-failed, which marks it failed and tells', async () => {
    const h = v.h();
    await failbox.append([unsureMessage(`${v.modelProvider}-resume`)]);
    await save(h, 'asking-box', imapWorkflowYaml(failbox, 'asking-box', 'MAIL_PASSWORD', MANUAL));
    const runId = await runNow(h, 'asking-box');
    await h.cloud.drain();
    const [question] = (
      (await (await h.api('GET', '/admin/api/pending')).json()) as {
        decision_id: string;
        run_id: string;
      }[]
    ).filter((d) => d.run_id === runId);
    expect(question).toBeDefined();
    const from = h.gateway.published.length;
    h.gateway.outages.add('resume:dynamodb');
    try {
      const answer = JSON.stringify({ action: 'skip' });
      const res = await h.api(
        'POST',
        `/admin/api/decisions/${encodeURIComponent(question!.decision_id)}`,
        answer,
      );
      expect(res.status).toBe(200);
      await h.cloud.drain(); // resume ×3 → step-failed; the learning → agent
    } finally {
      h.gateway.outages.delete('resume:dynamodb');
    }
    expect(h.cloud.failures.splice(0).map((f) => f.fn)).toEqual(['resume']);
    expect(failedNotices(h, from)).toEqual([
      {
        by: 'step-failed',
        message: expect.stringMatching(
          new RegExp(`run ${runId} failed: \\S*resume\\S* gave up after 3 attempts`),
        ),
      },
    ]);
    expectDeployable(h);
  });

  it('a run whose step nobody takes is sent again by the sweeper, then marked failed and told by it', async () => {
    const h = v.h();
    await save(h, 'lost-steps', eventWorkflowYaml('lost-steps'));
    const body = JSON.stringify({ items: [{ id: 'form-19', subject: 'Refund request', text: 'Lost.' }] });
    const res = await signedHook(h, 'lost-steps', body, h.gateway.secrets.get(h.outputs.WebhookSecretArn!)!);
    const { run_id } = (await res.json()) as { run_id: string };
    // The executor's event is never delivered (the bus is not drained): three sweeps, five minutes apart.
    const from = h.gateway.published.length;
    const start = Date.now();
    for (const minutes of [6, 12, 18]) {
      const swept = await h.cloud.tick('sweeper', new Date(start + minutes * 60_000));
      expect(swept).toMatchObject({ ok: true });
    }
    expect(h.gateway.events.filter((e) => e.by === 'sweeper' && e.detail.run_id === run_id)).toHaveLength(2);
    expect(failedNotices(h, from)).toEqual([
      {
        by: 'sweeper',
        message: expect.stringContaining(
          `run ${run_id} failed: its dispatch to the executor step was never taken (sent 3 times)`,
        ),
      },
    ]);
    await h.cloud.drain(); // the late deliveries find the run failed and change nothing
    expect(await h.store.get('runs', run_id)).toMatchObject({ status: 'failed' });
    expectDeployable(h);
  });

  agentFailureJourneys(v, () => failbox);

  it('the mailbox going away between the trigger and the executor fails the run in the executor, told with the reason', async () => {
    const h = v.h();
    await failbox.append([unsureMessage(`${v.modelProvider}-gone`)]);
    await save(h, 'fading-box', imapWorkflowYaml(failbox, 'fading-box', 'MAIL_PASSWORD', MANUAL));
    const from = h.gateway.published.length;
    const runId = await runNow(h, 'fading-box'); // the api function's trigger reads the mailbox
    await failbox.stop();
    await h.cloud.drain();
    expect(failedNotices(h, from)).toEqual([
      {
        by: 'executor',
        message: expect.stringMatching(
          new RegExp(`run ${runId} failed: IMAP .*(refused the connection|ECONNRESET)`),
        ),
      },
    ]);
    expectDeployable(h);
  });

  it('a function whose binding is removed from the template fails, naming the function and the permission it lacked', async () => {
    const h = v.h();
    const t = structuredClone(h.template);
    const key = h.deployment.only('AWS::KMS::Key', 'SecretsCredentialsKey');
    const role = h.deployment.functions.get('trigger')!.roleArn.split('/').pop()!;
    for (const r of Object.values(t.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      const roles = (r.Properties!.Roles as { Ref: string }[]).map((x) => h.deployment.ref(x.Ref));
      if (!roles.includes(role)) continue;
      const doc = r.Properties!.PolicyDocument as { Statement: { Resource: unknown }[] };
      doc.Statement = doc.Statement.filter((st) => !JSON.stringify(st.Resource).includes(key));
    }
    h.redeploy(t);
    try {
      await h.cloud.fire(h.scheduleGroup, 'inbox-triage', new Date('2026-03-03T08:00:00Z'));
      expect(() => expectDeployable(h)).toThrow(
        /trigger was refused kms:Decrypt on arn:aws:kms:[^ ]+: the template's policy/,
      );
    } finally {
      h.redeploy(h.template);
      h.gateway.refusals.length = 0;
      h.cloud.failures.length = 0;
    }
  });
}
