import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { createApp } from '../../shared/web/app.ts';
import { makeEngine, makeHarness, WEBHOOK_SECRET, type Harness } from './support.ts';

const sign = (body: string | Uint8Array, secret = WEBHOOK_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

let h: Harness;

beforeEach(async () => {
  h = await makeHarness();
});

afterEach(async () => {
  await h.cleanup();
});

const hook = (workflowId: string, body: string | Uint8Array, signature?: string) =>
  h.app.request(`/hooks/${workflowId}`, {
    method: 'POST',
    headers: signature === undefined ? {} : { 'X-Handoff-Signature': signature },
    body,
  });

describe('POST /hooks/:workflowId', () => {
  it('starts a webhook run for a correctly signed body, without a bearer token', async () => {
    const body = '{"event":"mail.received","count":3}';
    const res = await hook('inbox-triage', body, sign(body));
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await h.launcher.idle();
    const run = await getRun(h.engine.store, run_id);
    expect(run.trigger).toEqual({ kind: 'webhook', detail: body });
    expect(run.status).toBe('waiting');
  });

  it('starts one run per Idempotency-Key: a retry with the same key gets the same run back', async () => {
    const body = '{"event":"mail.received"}';
    const send = (key: string) =>
      h.app.request('/hooks/inbox-triage', {
        method: 'POST',
        headers: { 'X-Handoff-Signature': sign(body), 'Idempotency-Key': key },
        body,
      });
    const first = await send('delivery-7f3a');
    expect(first.status).toBe(202);
    const { run_id } = (await first.json()) as { run_id: string };
    const retry = await send('delivery-7f3a');
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ run_id, duplicate: true });
    expect((await send('delivery-8b21')).status).toBe(202);
    await h.launcher.idle();
    expect(await listRuns(h.engine.store)).toHaveLength(2);

    const bad = await send('has space');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'Idempotency-Key must be 1-200 visible ASCII characters (a UUID is fine)',
    });
    expect(await listRuns(h.engine.store)).toHaveLength(2);
  });

  it('verifies the raw bytes, not a re-encoding of them', async () => {
    const body = new TextEncoder().encode('{ "spaced" :  "é" }\n');
    const res = await hook('inbox-triage', body, sign(body).toUpperCase().replace('SHA256=', 'sha256='));
    expect(res.status).toBe(202);
    expect((await hook('inbox-triage', body, sign('{"spaced":"é"}'))).status).toBe(401);
  });

  it('refuses a missing, malformed or wrong signature with 401 and starts nothing', async () => {
    const body = '{"x":1}';
    for (const signature of [
      undefined,
      '',
      'sha256=',
      sign(body).slice(7),
      `sha1=${'0'.repeat(40)}`,
      sign(body, 'other'),
      sign('{"x":2}'),
    ]) {
      const res = await hook('inbox-triage', body, signature);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain('X-Handoff-Signature');
    }
    expect(await listRuns(h.engine.store)).toEqual([]);
  });

  it('answers 401 when HANDOFF_WEBHOOK_SECRET is not set, even for a "signed" body', async () => {
    const { env, engine } = await makeEngine();
    const app = createApp({ engine, env, runner: h.launcher });
    const res = await app.request('/hooks/inbox-triage', {
      method: 'POST',
      headers: { 'X-Handoff-Signature': sign('', '') },
      body: '',
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toContain('set HANDOFF_WEBHOOK_SECRET');
  });

  it('404s an unknown workflow (after the signature checks out)', async () => {
    expect((await hook('nope', 'x', sign('x'))).status).toBe(404);
    expect((await hook('nope', 'x', sign('y'))).status).toBe(401);
  });

  it('a signed empty body is accepted, and the trigger skips the run', async () => {
    const res = await hook('inbox-triage', '', sign(''));
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await h.launcher.idle();
    const run = await getRun(h.engine.store, run_id);
    expect(run).toMatchObject({ status: 'skipped', trigger: { kind: 'webhook', detail: '' } });
  });

  it('refuses bodies over the size limit', async () => {
    const body = 'x'.repeat(1024 * 1024 + 1);
    const res = await hook('inbox-triage', body, sign(body));
    expect(res.status).toBe(413);
  });
});
