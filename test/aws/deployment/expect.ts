/** What the deployment journeys check after each step, the things they make and the calls they repeat. */
import { createHmac } from 'node:crypto';
import { expect } from '@jest/globals';
import type { Dovecot } from '../../support/dovecot.ts';
import { DOVECOT_USER } from '../../support/dovecot.ts';
import type { Harness } from './harness.ts';
import type { Published } from './gateway.ts';

/** What each describe of the journeys shares: the harness, its variant and a mailbox of its own. */
export interface Variant {
  name: string;
  modelProvider: 'bedrock' | 'local';
  h(): Harness;
  dovecot(): Dovecot;
}

/** Every call a function made that its IAM policy did not allow, as one line each. */
export function refusals(h: Harness): string[] {
  return h.gateway.refusals.map(
    (r) =>
      `${r.principal} was refused ${r.action} on ${r.resource}: the template's policy for it does not allow it`,
  );
}

/** Each function's failed invocations (after Lambda's retries), with the error. */
export function failures(h: Harness): string[] {
  return h.cloud.failures.map((f) => `${f.fn}: ${f.error}`);
}

/** Fails naming each function and permission a deployment would have lacked, and each function that gave up. */
export function expectDeployable(h: Harness): void {
  expect({ refusals: refusals(h), failures: failures(h) }).toEqual({ refusals: [], failures: [] });
}

/** The notices published on the topic since `from` (an index into the gateway's list). */
export function noticesSince(h: Harness, from: number): Published[] {
  return h.gateway.published.slice(from);
}

/** The `failed` notices published since `from`: who sent each, and its message. */
export function failedNotices(h: Harness, from: number): { by: string; message: string }[] {
  return noticesSince(h, from)
    .filter((p) => / failed$/.test(p.subject))
    .map((p) => ({ by: p.by, message: p.message }));
}

/** The alarms that published to the topic since `from`, by name. */
export function alarmSubjects(h: Harness, from: number): string[] {
  return noticesSince(h, from)
    .filter((p) => p.by === 'cloudwatch')
    .map((p) => (JSON.parse(p.message) as { AlarmName: string }).AlarmName);
}

/** Saves a workflow over the signed API (in `workspace`), and lets schedule-sync see it. */
export async function save(h: Harness, id: string, yaml: string, workspace = 'default'): Promise<void> {
  const res = await h.api('PUT', `/admin/api/workflows/${id}`, yaml, 'application/yaml', {
    'X-Handoff-Workspace': workspace,
  });
  expect(res.status).toBeLessThan(300);
  await h.cloud.drain();
}

/** Starts a run over the signed API (in `workspace`): 202 and its id. */
export async function runNow(h: Harness, id: string, workspace = 'default'): Promise<string> {
  const res = await h.api('POST', `/admin/api/workflows/${id}/runs`, undefined, undefined, {
    'X-Handoff-Workspace': workspace,
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { run_id: string }).run_id;
}

/** Posts a webhook body to `/hooks/<workflow>` through API Gateway, signed with `secret` (as docs/deploy.md shows). */
export function signedHook(h: Harness, workflow: string, body: string, secret: string): Promise<Response> {
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return fetch(new URL(`/hooks/${workflow}`, h.apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Handoff-Signature': signature },
    body,
  });
}

export const SCHEDULE = 'cron(0 8 * * ? *)';
/** A workflow started by hand (or by the API). */
export const MANUAL = '{ manual: true }';

/** A workflow reading the Dovecot mailbox over IMAP, its password under `credential`. */
export function imapWorkflowYaml(
  dovecot: Dovecot,
  id: string,
  credential: string,
  trigger = `{ schedule: "${SCHEDULE}" }`,
): string {
  return [
    `id: ${id}`,
    `name: ${id}`,
    'instructions: Archive newsletters and receipts; when a message fits no category, skip it.',
    `trigger: ${trigger}`,
    `source: { type: imap, host: 127.0.0.1, port: ${dovecot.port}, tls: false, user: ${DOVECOT_USER}, credential: ${credential} }`,
    'actions:',
    '  - { name: archive, description: Move the message to the Archive folder. }',
    'human_gate: { options: [archive, skip] }',
    '',
  ].join('\n');
}

/** A workflow whose items come from its webhook; `secret` names its own signing secret (a credential). */
export function eventWorkflowYaml(id: string, secret?: string): string {
  return [
    `id: ${id}`,
    `name: ${id}`,
    'instructions: File refund requests as tickets; when a request fits no category, skip it.',
    'trigger: { webhook: true }',
    `source: { type: event${secret ? `, secret: ${secret}` : ''} }`,
    'actions:',
    '  - { name: file_ticket, description: Open a ticket with a title and a summary. }',
    'human_gate: { options: [file_ticket, skip] }',
    '',
  ].join('\n');
}
