import { afterEach, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { addDemoWorkflow, makeHarness, type Harness } from '../web/support.ts';

let h: Harness;
afterEach(() => h?.cleanup());

it('the web run inspector shows each handoff as its call item and its output item', async () => {
  h = await makeHarness();
  await addDemoWorkflow(h.engine, h.dir, {
    id: 'shared-inbox',
    specialists: [
      {
        name: 'billing',
        description: 'Receipts and invoices.',
        instructions: 'Archive receipts and invoices.',
      },
      { name: 'newsletters', description: 'Newsletters.', instructions: 'Archive newsletters.' },
    ],
  });
  const run = await startRun(h.engine, 'shared-inbox', { kind: 'manual', detail: null });
  const handed = (await listAudit(h.engine.store, { runId: run.id })).filter(
    (e) => e.outcome === 'handed_off',
  );
  expect(handed.length).toBeGreaterThanOrEqual(2);

  const page = await (await h.app.request(`http://127.0.0.1:3000/runs/${run.id}`)).text();

  const section = page.slice(page.indexOf('data-handoffs'), page.indexOf('id="trace-title"'));
  const rows = section.split('<tr data-handoff=').slice(1);
  expect(rows).toHaveLength(handed.length);
  for (const [i, entry] of handed.entries()) {
    const row = rows[i]!;
    expect(row).toContain(entry.item_id!.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(row).toMatch(new RegExp(`handoff call</span> executor → ${entry.handoff!.to}`));
    expect(row).toMatch(new RegExp(`handoff output</span> ${entry.handoff!.to} decides it`));
  }
  expect(page).toContain('handed off'); // the audit's record of each handoff, in the trace
});

it('the question screen says which specialist asked', async () => {
  h = await makeHarness();
  await addDemoWorkflow(h.engine, h.dir, {
    id: 'shared-inbox',
    specialists: [
      { name: 'billing', description: 'Receipts and invoices.', instructions: 'Ask about every invoice.' },
    ],
  });
  await startRun(h.engine, 'shared-inbox', { kind: 'manual', detail: null });
  const asked = (await listPending(h.engine.store)).filter((d) => d.agent === 'billing');
  expect(asked.length).toBeGreaterThan(0);
  const page = await (await h.app.request(`http://127.0.0.1:3000/decide/${asked[0]!.id}`)).text();
  expect(page).toMatch(/The billing specialist suggests\s+<strong>/);
  const byExecutor = (await listPending(h.engine.store)).find((d) => d.agent === undefined);
  expect(byExecutor).toBeDefined(); // the demo inbox has items no specialist covers that it asks about
  const other = await (await h.app.request(`http://127.0.0.1:3000/decide/${byExecutor!.id}`)).text();
  expect(other).toMatch(/The agent suggests\s+<strong>/);
});
