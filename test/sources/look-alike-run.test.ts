/**
 * Mail to a domain whose name is also a top-level label (`example.org` and everyone under
 * `.example`) is judged on what it is, not flagged as a look-alike of your own domain.
 */
import { afterEach, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

it('mail to me@example.org from senders under .example is never called a look-alike, and the newsletter is archived', async () => {
  const to = 'me@example.org';
  fixture = await engineFixture({
    model: () => new OfflineModel(),
    messages: [
      mail({
        to,
        from: 'news@northwind-news.example',
        subject: 'Weekly newsletter digest',
        listUnsubscribe: '<mailto:u@northwind-news.example>',
      }),
      mail({
        to,
        from: 'billing@billing.cloudhost.example',
        subject: 'Your receipt: payment of $12.00 received',
      }),
      mail({ to, from: 'sam@colleague.example', subject: 'Lunch on Friday?' }),
      mail({ to, from: 'security@examp1e.org', subject: 'Verify your account' }),
    ],
  });

  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  const audit = await listAudit(fixture.store, { runId: run.id });
  const pending = await listPending(fixture.store);
  const reasons = [
    ...audit.map((e) => `${e.subject ?? ''}: ${e.reasoning ?? ''}`),
    ...pending.map((d) => `${d.subject}: ${d.reasoning}`),
  ];
  const flagged = reasons.filter((r) => /look-alike/i.test(r)).map((r) => r.split(':')[0]);
  expect(flagged).toEqual(['Verify your account']); // only the real look-alike of example.org
  expect(audit).toContainEqual(
    expect.objectContaining({ subject: 'Weekly newsletter digest', outcome: 'acted', action: 'archive' }),
  );
});
