import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { readInstructions } from '../../shared/models/offline/classify.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { engineFixture, mail, NEWSLETTER, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

it('reads which action the instructions give each kind of item', () => {
  const plan = readInstructions(
    'Archive newsletters and receipts, file bug reports as tickets, draft replies to colleagues.',
    ['archive', 'file_ticket', 'draft_reply', 'delete'],
  );
  expect(Object.fromEntries(plan)).toEqual({
    newsletter: 'archive',
    receipt: 'archive',
    'bug report': 'file_ticket',
    colleague: 'draft_reply',
  });
});

it('drives the real agent loop over the demo inbox: handles the clear mail, asks about the rest, never above 0.95', async () => {
  const model = new OfflineModel();
  fixture = await engineFixture({ messages: [], model: () => model });
  await fs.rm(fixture.maildir, { recursive: true });
  await createDemoMaildir(fixture.maildir);

  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  expect(run.status).toBe('waiting');
  expect(run.counts.acted).toBeGreaterThanOrEqual(6);
  const pending = await listPending(fixture.store);
  const subjects = pending.map((d) => d.subject).join('\n');
  expect(subjects).toMatch(/password/i); // the phishing look-alike is never handled alone
  expect(subjects).toMatch(/partnership/i); // nor the unknown vendor's pitch
  const confidences = (await listAudit(fixture.store)).flatMap((e) =>
    e.decided_by === 'model' ? [e.confidence!] : [],
  );
  expect(Math.max(...confidences, ...pending.map((d) => d.confidence))).toBeLessThanOrEqual(0.95);
  expect(model.stats.maxInputChars).toBeGreaterThan(0);
});

it('is deterministic: the same inbox gives the same proposals', async () => {
  const runOnce = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-offline-'));
    const f = await engineFixture({ messages: [], model: () => new OfflineModel() });
    await fs.rm(f.maildir, { recursive: true });
    await createDemoMaildir(f.maildir);
    await startRun(f.deps, 'inbox', { kind: 'manual', detail: null });
    const pending = (await listPending(f.store)).map((d) => [d.item_id, d.suggested_action, d.confidence]);
    await f.cleanup();
    await fs.rm(dir, { recursive: true, force: true });
    return pending.sort();
  };
  expect(await runOnce()).toEqual(await runOnce());
});

it('acts unasked only on what the instructions clearly name: bulk alerts, CI mail and role addresses at your domain are asked about', async () => {
  const unclear = [
    mail({
      from: 'ci@northwind.example',
      subject: 'Build #1832 passed on main',
      body: 'All checks have passed. Triggered by a push; duration 4m 12s.\n',
    }),
    mail({
      from: 'people-team@northwind.example',
      subject: 'Benefits enrolment opens Monday',
      body: 'Please read the details below. Questions go to the usual channel.\n',
    }),
    mail({
      from: 'alerts@faultline.example',
      subject: '[checkout-api] New issue: TypeError: cannot read properties of undefined',
      body: 'First seen 4 minutes ago in production. View the full report on the dashboard.\n',
      listUnsubscribe: '<https://faultline.example/u/1>',
    }),
    mail({
      from: 'notifications@codehost.example',
      subject: 'Re: [desk] Sync crashes on startup (#4411)',
      body: 'The sync client crashes with an error on startup since 2.4.\n\nYou are receiving this because you are subscribed to this thread. Unsubscribe.\n',
      listUnsubscribe: '<https://codehost.example/unsub>',
    }),
    mail({
      from: 'billing@northwind-payments.example',
      subject: 'Invoice 5521: payment of $310.00 received',
      body: 'Please confirm your card details for the next charge.\n',
    }),
  ];
  const clear = [
    mail({ ...NEWSLETTER, body: 'This week in infrastructure: three long reads.\n' }),
    mail({
      from: 'priya@northwind.example',
      subject: 'Could you look at my draft before Thursday?',
      body: 'Hi, could you give it a read? Thanks, Priya\n',
    }),
  ];
  fixture = await engineFixture({ messages: [...unclear, ...clear], model: () => new OfflineModel() });

  await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  const pending = await listPending(fixture.store);
  expect(pending.map((d) => d.subject).sort()).toEqual(unclear.map((m) => m.subject).sort());
  expect(Math.max(...pending.map((d) => d.confidence))).toBeLessThan(0.7);
  const acted = (await listAudit(fixture.store)).filter((e) => e.decided_by === 'model');
  expect(acted.map((e) => e.action).sort()).toEqual(['archive', 'draft_reply']);
  const lookAlike = pending.find((d) => d.sender === 'billing@northwind-payments.example')!;
  expect(lookAlike.suggested_action).toBe('skip');
  expect(lookAlike.reasoning).toMatch(/look-alike/);
});

it('states what it matched in each reason, and what it did not find when it asks', async () => {
  fixture = await engineFixture({
    model: () => new OfflineModel(),
    messages: [
      mail({ ...NEWSLETTER, body: 'This week in tools: the weekly digest.\n' }),
      mail({ from: 'billing@shop.example', subject: 'Your invoice', body: 'Invoice 42 for your order.\n' }),
      mail({ from: 'security@northwlnd.example', subject: 'Password notice', body: 'Hello.\n' }),
    ],
  });

  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  const reasons = new Map(
    [...(await listAudit(fixture.store, { runId: run.id })), ...(await listPending(fixture.store))].flatMap(
      (e) => (e.subject && e.reasoning ? [[e.subject, e.reasoning] as const] : []),
    ),
  );
  expect(reasons.get(NEWSLETTER.subject)).toMatch(
    /^List-Unsubscribe header; words "weekly", "newsletter", "digest"(, "[a-z ]+")*; instructions name newsletters → archive$/,
  );
  expect(reasons.get('Your invoice')).toBe(
    'words "invoice", "order"; instructions name receipts → archive, but it names no amount paid → asking',
  );
  expect(reasons.get('Password notice')).toBe(
    'sender domain northwlnd.example is a look-alike of your own domain → possible phishing: leave it alone (not touched without you)',
  );
});

it('asks about mail that reads like another kind: a refund scam, a shipment, an invitation, a notice to everyone, a pitch about crashes', async () => {
  const to = 'me@northwind.example';
  fixture = await engineFixture({
    model: () => new OfflineModel(),
    messages: [
      mail({
        to,
        from: 'billing@velzen-pay.example',
        subject: 'Payment of $148.84 confirmed',
        body: 'We charged $148.84 to your card for this order.\nIf you did not make this purchase, call our support line within 24 hours to cancel it.\n',
      }),
      mail({
        to,
        from: 'orders@ravel.example',
        subject: 'Your order has shipped',
        body: 'Order total: $32.10, paid by card.\nEstimated delivery: Tuesday.\n',
      }),
      mail({
        to,
        from: 'aroha@northwind.example',
        subject: 'Invitation: kickoff @ Thu 10:00',
        body: 'Can you make it?\n',
      }),
      mail({
        to,
        from: 'lena@northwind.example',
        subject: 'Reminder: timesheets due Friday',
        body: 'Hi everyone,\nCould you all submit your timesheets by Friday?\n',
      }),
      mail({
        to,
        from: 'joon@koveltin.example',
        subject: 'Saw your launch, congrats!',
        body: 'Are crashes and errors slowing your team down? Our platform catches every exception before users notice.\n',
      }),
    ],
  });

  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  expect(run.counts).toMatchObject({ acted: 0, deferred: 5 });
  const reasons = (await listPending(fixture.store)).map((d) => d.reasoning).join('\n');
  expect(reasons).toContain('it asks you to act if the payment was not yours');
  expect(reasons).toContain('it is about a delivery, not a payment');
  expect(reasons).toContain('it is a calendar invitation');
  expect(reasons).toContain('it is addressed to everyone, not to you');
  expect(reasons).toContain('it reads like someone selling a product');
});
