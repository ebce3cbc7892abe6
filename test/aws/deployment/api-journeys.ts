/**
 * The API's journeys on the deployment, each through API Gateway as a caller would: a manual
 * run over the signed API, webhooks signed with the deployment's shared secret and with a
 * workflow's own (a KMS-sealed credential), a workspace's API key made with the CLI against
 * the table, and an assistant turn accepted at once and answered by the agent function.
 */
import { expect, it } from '@jest/globals';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { DOVECOT_USER } from '../../support/dovecot.ts';
import { eventWorkflowYaml, expectDeployable, save, signedHook, type Variant } from './expect.ts';
import { SignatureV4 } from '@smithy/signature-v4';
import { OPERATOR } from './harness.ts';
import { Sha256 } from './sigv4.ts';
import { REGION } from './template.ts';

const REFUND = JSON.stringify({
  items: [
    { id: 'form-17', subject: 'Refund request', text: 'Order 12 arrived broken.', sender: 'ana@example.com' },
  ],
});

export function apiJourneys(v: Variant): void {
  const hook = (workflow: string, body: string, secret: string) => signedHook(v.h(), workflow, body, secret);

  it('API Gateway admits to /admin/api only a request signed with the caller’s own secret', async () => {
    const h = v.h();
    const url = new URL('/admin/api/pending', h.apiUrl);
    const forged = await new SignatureV4({
      service: 'execute-api',
      region: REGION,
      credentials: { accessKeyId: OPERATOR.accessKeyId, secretAccessKey: 'not-the-secret' },
      sha256: Sha256,
    }).sign({
      method: 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { host: url.host },
    });
    const refused = await fetch(url, { headers: forged.headers });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('The request signature we calculated does not match');
    expect((await fetch(url)).status).toBe(403);
    expect((await h.api('GET', '/admin/api/pending')).status).toBe(200);
  });

  it('a manual run over the signed API: 202 with the run, the api function runs its trigger (the mailbox opened with its sealed password), the executor the rest', async () => {
    const h = v.h();
    await v.dovecot().append([
      renderMessage({
        from: 'news@letters.example',
        fromName: 'Letters',
        to: DOVECOT_USER,
        subject: 'This week in letters',
        body: 'The weekly newsletter: three stories and a tool of the week. Unsubscribe any time.',
        date: new Date('2026-03-02T09:00:00Z'),
        messageId: `<letters-${v.modelProvider}@letters.example>`,
        listUnsubscribe: '<mailto:leave@letters.example>',
      }),
    ]);
    const decrypts = h.gateway.kmsCalls.length;
    const res = await h.api('POST', '/admin/api/workflows/inbox-triage/runs');
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    expect(h.gateway.kmsCalls.slice(decrypts)).toContainEqual({ by: 'api', action: 'Decrypt' });
    await h.cloud.drain(); // executor (and completer, or a question)
    expectDeployable(h);
    const run = (await (await h.api('GET', `/admin/api/runs/${run_id}`)).json()) as { status: string };
    expect(['completed', 'waiting']).toContain(run.status);
    expect(h.gateway.events.filter((e) => e.detailType === 'handoff.step' && e.by === 'api')).not.toEqual([]);
  });

  it("a webhook signed with the deployment's shared secret (from Secrets Manager) starts a run in the default workspace; a wrong signature starts nothing", async () => {
    const h = v.h();
    await save(h, 'refunds', eventWorkflowYaml('refunds'));
    // As the operator reads it: `aws secretsmanager get-secret-value --secret-id <WebhookSecretArn>`.
    const secrets = new SecretsManagerClient({ region: REGION, endpoint: h.endpoint, credentials: OPERATOR });
    const secret = (await secrets.send(new GetSecretValueCommand({ SecretId: h.outputs.WebhookSecretArn! })))
      .SecretString!;
    secrets.destroy();
    const refused = await hook('refunds', REFUND, 'not-the-secret');
    expect(refused.status).toBe(401);
    const res = await hook('refunds', REFUND, secret);
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await h.cloud.drain();
    expectDeployable(h);
    expect(await h.store.get('runs', run_id)).toMatchObject({ workflow_id: 'refunds' });
    expect((await h.store.list('runs')).filter((r) => r.workflow_id === 'refunds')).toHaveLength(1);
  });

  it("a webhook signed with the workflow's own secret (a credential sealed with the stack's key) is opened by the webhook function; the shared secret does not open it", async () => {
    const h = v.h();
    const own = 'REFUNDS_HOOK_SECRET';
    const value = 'refunds-own-secret-0123456789';
    await h.cli(
      ['credentials', 'set', own],
      {
        USE_DYNAMODB: 'true',
        HANDOFF_TABLE: h.outputs.TableName!,
        HANDOFF_KMS_KEY_ID: h.outputs.CredentialsKeyArn!,
      },
      value,
    );
    await save(h, 'refunds-own', eventWorkflowYaml('refunds-own', own));
    const shared = h.gateway.secrets.get(h.outputs.WebhookSecretArn!)!;
    expect((await hook('refunds-own', REFUND, shared)).status).toBe(401);
    const decrypts = h.gateway.kmsCalls.length;
    const res = await hook('refunds-own', REFUND, value);
    expect(res.status).toBe(202);
    expect(h.gateway.kmsCalls.slice(decrypts)).toContainEqual({ by: 'webhook', action: 'Decrypt' });
    const { run_id } = (await res.json()) as { run_id: string };
    await h.cloud.drain();
    expectDeployable(h);
    expect(await h.store.get('runs', run_id)).toMatchObject({ workflow_id: 'refunds-own' });
  });

  it("a workspace's API key made with the CLI against the table opens that workspace's /api/pending through API Gateway, and not another workspace's run", async () => {
    const h = v.h();
    const table = { USE_DYNAMODB: 'true', HANDOFF_TABLE: h.outputs.TableName! };
    await h.cli(['workspaces', 'add', 'team-a'], table);
    const made = await h.cli(['keys', 'add', '--workspace', 'team-a', '--json'], table);
    const { key } = JSON.parse(made.stdout) as { key: string };
    const bearer = { authorization: `Bearer ${key}` };
    const pending = await fetch(new URL('/api/pending', h.apiUrl), { headers: bearer });
    expect(pending.status).toBe(200);
    expect(await pending.json()).toEqual([]);
    const someone = String((await h.store.list('runs'))[0]!.id);
    const other = await fetch(new URL(`/api/runs/${encodeURIComponent(someone)}`, h.apiUrl), {
      headers: bearer,
    });
    expect(other.status).toBe(404);
    // The same run is there for the administrator (IAM) in its own workspace.
    expect((await h.api('GET', `/admin/api/runs/${encodeURIComponent(someone)}`)).status).toBe(200);
    const unsigned = await fetch(new URL('/api/pending', h.apiUrl));
    expect(unsigned.status).toBe(401);
  });

  it('an assistant turn is accepted at once (202 with its turn id); the agent function runs it and the reply arrives on the chat, once even when the event is delivered twice', async () => {
    const h = v.h();
    const created = await h.api('POST', '/admin/api/chats', JSON.stringify({ title: 'mornings' }));
    expect(created.status).toBe(201);
    const { chat_id } = (await created.json()) as { chat_id: string };
    const models = h.gateway.bedrockCalls.length;
    const sent = await h.api(
      'POST',
      `/admin/api/chats/${chat_id}/messages`,
      JSON.stringify({ message: 'archive newsletters every morning' }),
    );
    expect(sent.status).toBe(202);
    const { turn_id } = (await sent.json()) as { chat_id: string; turn_id: string };
    expect(turn_id).toMatch(/^turn/);
    const turn = h.gateway.events.find((e) => e.detailType === 'handoff.chat-turn')!;
    expect(turn).toMatchObject({ by: 'api', detail: { chat_id, turn_id } });
    expect(h.gateway.bedrockCalls.length).toBe(models); // nothing ran in the request
    await h.cloud.drain();
    expectDeployable(h);
    if (v.modelProvider === 'bedrock')
      expect(h.gateway.bedrockCalls.slice(models).every((c) => c.by === 'agent')).toBe(true);
    const read = async () =>
      (
        (await (await h.api('GET', `/admin/api/chats/${chat_id}`)).json()) as {
          turns: { role: string; text: string; turn_id?: string }[];
        }
      ).turns;
    const turns = await read();
    expect(turns.map((t) => [t.role, t.turn_id])).toEqual([
      ['user', turn_id],
      ['assistant', turn_id],
    ]);
    expect(turns[1]!.text.length).toBeGreaterThan(0);
    // EventBridge delivers at least once: the same event again runs nothing.
    const again = await h.cloud.redeliver(turn);
    expect(again).toMatchObject({ ok: true });
    expect(await read()).toEqual(turns);
  });
}
