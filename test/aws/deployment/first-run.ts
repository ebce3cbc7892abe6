/**
 * The README's walk, from deploy to the first answer: its commands read from README.md and
 * run as the operator would (the CLI and curl for real, `npx cdk deploy` checked to be what
 * the harness synthesized), then the schedule fires, the run pauses on the Dovecot mailbox,
 * SNS carries the link, the answer from that link is saved and carried out at once, the last answer resumes
 * the run, and learning happens in the agent function.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { readParams } from '../../../lib/params.ts';
import { DEMO_MESSAGES } from '../../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER } from '../../support/dovecot.ts';
import { messageIds } from '../../support/imap-fixture.ts';
import { DecisionSchema, RunSchema } from '../../../shared/records/runs.ts';
import { expectDeployable, SCHEDULE, type Variant } from './expect.ts';
import { cdkContext, operatorDir, readmeCommands, withOutputs, type OperatorDir } from './readme.ts';

const FIRED_AT = new Date('2026-03-02T08:00:00Z');

/** The README's deploy command, with the variant's provider: what the harness deploys. */
export function readmeDeployParams(modelProvider: 'bedrock' | 'local') {
  const deploy = readmeCommands().find((c) => /^npx cdk deploy\b/.test(c));
  if (!deploy) throw new Error("the README's AWS walk has no `npx cdk deploy`");
  const context: Record<string, string> = {
    ...cdkContext(deploy),
    ...(modelProvider === 'local' ? { modelProvider } : {}),
  };
  return readParams({ tryGetContext: (key: string) => context[key] });
}

export function firstRunJourney(v: Variant): void {
  let operator: OperatorDir;
  beforeAll(() => {
    operator = operatorDir();
  });
  afterAll(() => operator?.remove());

  it("the README's walk: deploy, the mailbox password sealed, a scheduled IMAP workflow saved over the signed API; the schedule fires, the run pauses and SNS carries the link", async () => {
    const h = v.h();
    await v.dovecot().append(DEMO_MESSAGES.map((m) => renderMessage(m)));
    const shell: Record<string, string> = { ...h.shellEnv() };
    // What the person does by hand before a command that reads a file.
    const byHand: Record<string, () => void> = {
      'password.txt': () => writeFileSync(path.join(operator.dir, 'password.txt'), DOVECOT_PASSWORD),
      // The template, with their host, user and a schedule (a laptop's Dovecot speaks plain IMAP).
      'inbox.yaml': () => {
        const file = path.join(operator.dir, 'inbox.yaml');
        const yaml = readFileSync(file, 'utf8')
          .replace('trigger: { manual: true }', `trigger: { schedule: "${SCHEDULE}" }`)
          .replace(/host: imap\.example\.com.*$/m, 'host: 127.0.0.1')
          .replace(/port: 993$/m, `port: ${v.dovecot().port}`)
          .replace(/tls: true$/m, 'tls: false')
          .replace(/user: you@example\.com.*$/m, `user: ${DOVECOT_USER}`);
        expect(yaml).toContain(`port: ${v.dovecot().port}`);
        writeFileSync(file, yaml);
      },
    };
    const ran: string[] = [];
    for (const command of readmeCommands()) {
      if (/^npx cdk bootstrap$/.test(command)) {
        ran.push('bootstrap'); // nothing to bootstrap: the assets are on this machine
        continue;
      }
      if (/^npx cdk deploy\b/.test(command)) {
        // The deployment under test is this command's synthesis (with the variant's provider).
        expect(h.props).toEqual(readmeDeployParams(v.modelProvider));
        ran.push('deploy');
        continue;
      }
      if (/^npx cdk\b/.test(command)) throw new Error(`the test cannot run the README's "${command}"`);
      const assignment = /^(\w+)=(\S+)$/.exec(command);
      if (assignment) {
        shell[assignment[1]!] = withOutputs(assignment[2]!, h.outputs);
        ran.push(assignment[1]!);
        continue;
      }
      for (const [, file] of command.matchAll(/(?:<\s*|@)([\w.-]+\.(?:txt|yaml))\b/g)) byHand[file!]?.();
      await operator.run(withOutputs(command, h.outputs), shell);
      ran.push(
        command
          .replace(/^(\w+=\S+\s+)*/, '')
          .replaceAll('"', '')
          .split(' ')
          .slice(0, 3)
          .join(' '),
      );
    }
    expect(ran).toEqual([
      'bootstrap',
      'deploy',
      'npx handoff credentials',
      'npx handoff templates',
      'API_URL',
      'curl --aws-sigv4 aws:amz:$AWS_REGION:execute-api',
    ]);
    expect(await h.store.get('credentials', 'MAIL_PASSWORD')).toMatchObject({ sealed: { alg: 'aws-kms' } });
    expect(h.gateway.kmsCalls).toEqual([{ by: 'operator', action: 'Encrypt' }]);
    expect(await h.store.get('workflows', 'inbox-triage')).toMatchObject({ id: 'inbox-triage' });
    await h.cloud.drain(); // handoff.workflow → schedule-sync → CreateSchedule
    expect(h.gateway.schedules.get(`${h.scheduleGroup}/inbox-triage`)).toMatchObject({
      expression: SCHEDULE,
      state: 'ENABLED',
    });

    const before = h.gateway.dynamo.length;
    const fired = await h.cloud.fire(h.scheduleGroup, 'inbox-triage', FIRED_AT);
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
    console.info(
      `scheduled run (${v.modelProvider}, ${DEMO_MESSAGES.length} messages): ${requests.length} DynamoDB requests (${summary})`,
    );
    expect([...byFunction.keys()]).toEqual(['trigger', 'executor']);
  });

  it('the answer from the signed link is saved and carried out at once (handoff.carry → resume) while the run waits; the last answer resumes the run; learning runs in the agent function', async () => {
    const h = v.h();
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
      body: new URLSearchParams({ token, action: 'archive', note: 'archive these' }).toString(),
      redirect: 'manual',
    });
    expect(answered.status).toBeLessThan(400);
    // Carried out as it arrives: the API sends it on the bus, the template's rule hands it to the
    // resume function, which archives the message while the run still waits for the rest.
    const carry = h.gateway.events.filter((e) => e.detailType === 'handoff.carry');
    expect(carry).toEqual([
      {
        by: 'api',
        bus: expect.any(String),
        source: 'handoff',
        detailType: 'handoff.carry',
        detail: { decision_id: id, workspace: 'default' },
      },
    ]);
    const asked = DecisionSchema.parse(await h.store.get('decisions', id));
    await h.cloud.drain(); // handoff.carry → resume; the learning event → agent
    expectDeployable(h);
    expect(h.cloud.failures).toEqual([]);
    expect(await messageIds(v.dovecot(), 'Archive')).toContain(asked.item_id);
    const waiting = RunSchema.parse(await h.store.get('runs', asked.run_id));
    expect(waiting).toMatchObject({ status: 'waiting', counts: { by_you: 1 } });
    const carriedBy = h.gateway.dynamo.filter((r) => r.by === 'resume');
    expect(carriedBy.length).toBeGreaterThan(0);
    const entries = (await h.store.list('audit')).filter((e) => e.item_id === asked.item_id);
    expect(entries.map((e) => [e.decided_by, e.outcome])).toEqual([['human', 'acted']]);
    // The rest over the signed API, as another system would answer.
    const pending = (await (await h.api('GET', '/admin/api/pending')).json()) as { decision_id: string }[];
    expect(pending.length).toBeGreaterThan(0);
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
    if (v.modelProvider === 'bedrock') {
      expect(h.gateway.bedrockCalls.some((c) => c.by === 'agent')).toBe(true);
      expect(h.gateway.bedrockCalls.map((c) => c.by).filter((by) => by === 'api')).toEqual([]);
    }
    expect((await h.store.list('rules')).length).toBeGreaterThan(0);
    expect(await h.store.list('learning_failures')).toEqual([]);
    // The resume did not act on the carried item again: one audit entry, and the run counts it once.
    const after = (await h.store.list('audit')).filter((e) => e.item_id === asked.item_id);
    expect(after).toHaveLength(1);
    expect(await h.store.get('runs', asked.run_id)).toMatchObject({
      status: 'completed',
      counts: { by_you: 1 },
    });
  });
}
