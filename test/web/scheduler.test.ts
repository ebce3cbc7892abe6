import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { listDecisions } from '../../shared/runs/decision-repository.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { deleteWorkflow } from '../../shared/workflows/repository.ts';
import { createRunLauncher, type RunLauncher } from '../../shared/web/run-launcher.ts';
import { startScheduler, type Scheduler } from '../../shared/web/scheduler.ts';
import { changeRun } from '../support/run-record.ts';
import { addDemoWorkflow, makeEngine, waitFor } from './support.ts';

const SCHEDULE = 'cron(0 8 * * ? *)'; // daily at 08:00 UTC: far too slow for a test…
const EVERY_SECOND = '* * * * * *'; // …so the test maps it to a real per-second croner pattern

let dir: string;
let engine: EngineDeps;
let launcher: RunLauncher;
let scheduler: Scheduler | undefined;
let logged: string[];

beforeEach(async () => {
  ({ dir, engine } = await makeEngine());
  launcher = createRunLauncher(engine);
  logged = [];
});

afterEach(async () => {
  scheduler?.stop();
  await scheduler?.idle();
  await launcher.idle();
  await fs.rm(dir, { recursive: true, force: true });
});

const runsOf = async (workflowId: string) =>
  (await listRuns(engine.store)).filter((r) => r.workflow_id === workflowId);

describe('startScheduler', () => {
  it('fires a scheduled workflow through croner: a real run, triggered by the schedule', async () => {
    await addDemoWorkflow(engine, dir, { id: 'scheduled', trigger: { schedule: SCHEDULE } });
    await addDemoWorkflow(engine, dir); // manual: never scheduled
    const asked: string[] = [];
    scheduler = startScheduler(engine, launcher, {
      cronOf: (schedule) => (asked.push(schedule), EVERY_SECOND),
      log: (line) => logged.push(line),
    });
    const [run] = await waitFor(
      async () => {
        const runs = await runsOf('scheduled');
        return runs.length > 0 ? runs : undefined;
      },
      5_000,
      'a scheduled run',
    );
    expect(asked).toEqual([SCHEDULE]);
    expect(run!.trigger).toEqual({ kind: 'schedule', detail: SCHEDULE });
    scheduler.stop();
    await scheduler.idle();
    await launcher.idle();
    expect((await getRun(engine.store, run!.id)).status).toBe('waiting');
    expect(await runsOf('inbox-triage')).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('refresh() picks up added and removed workflows', async () => {
    scheduler = startScheduler(engine, launcher, {
      cronOf: () => EVERY_SECOND,
      log: (line) => logged.push(line),
    });
    await scheduler.refresh();
    await addDemoWorkflow(engine, dir, { id: 'later', trigger: { schedule: 'rate(5 minutes)' } });
    await scheduler.refresh();
    await waitFor(
      async () => ((await runsOf('later')).length > 0 ? true : undefined),
      5_000,
      'a run of the added workflow',
    );
    await deleteWorkflow(engine.store, 'later');
    await scheduler.refresh();
    await scheduler.idle();
    const count = (await runsOf('later')).length;
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect((await runsOf('later')).length).toBe(count);
  });

  it('logs and skips a schedule croner cannot run', async () => {
    await addDemoWorkflow(engine, dir, { id: 'odd', trigger: { schedule: SCHEDULE } });
    scheduler = startScheduler(engine, launcher, { cronOf: () => null, log: (line) => logged.push(line) });
    await scheduler.refresh();
    expect(logged.some((l) => l.includes('odd') && l.includes('not scheduled'))).toBe(true);
  });

  it('sweep() expires overdue decisions by the injected clock, and the run resumes', async () => {
    await addDemoWorkflow(engine, dir);
    launcher.launch(await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null }));
    await launcher.idle();
    const [run] = await runsOf('inbox-triage');
    expect(run!.status).toBe('waiting');
    const later = new Date(Date.now() + 1000 * 3_600_000);
    scheduler = startScheduler(engine, launcher, { now: () => later, log: (line) => logged.push(line) });
    await scheduler.idle();
    await scheduler.sweep();
    const decisions = (await listDecisions(engine.store)).filter((d) => d.run_id === run!.id);
    expect(decisions.length).toBeGreaterThan(0);
    expect(decisions.every((d) => d.status === 'expired')).toBe(true);
    expect((await getRun(engine.store, run!.id)).status).toBe('completed');
    expect(logged).toEqual([]);
  });
});

describe('createRunLauncher', () => {
  it('logs one line and marks the run failed when executeRun throws', async () => {
    await addDemoWorkflow(engine, dir);
    const lines: string[] = [];
    const own = createRunLauncher(engine, (line) => lines.push(line));
    const run = await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null });
    await deleteWorkflow(engine.store, 'inbox-triage'); // executeRun now throws before the graph starts
    own.launch(run);
    await own.idle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^handoff: run ${run.id} \\(inbox-triage\\) failed: no workflow "inbox-triage"`),
    );
    expect(lines[0]).not.toContain('\n');
    const failed = await getRun(engine.store, run.id);
    expect(failed).toMatchObject({ status: 'failed', owner: null });
    expect(failed.error).toContain('no workflow');
  });

  it('fails a run it gives up on the one way every failure does: cleared, audited and announced', async () => {
    await addDemoWorkflow(engine, dir);
    const own = createRunLauncher(engine, () => {});
    const run = await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null });
    await changeRun(engine.store, run.id, () => ({
      dispatch: { node: 'executor', interrupt_id: 'i', from: null, sent_at: null, sends: 1, taken_at: null },
      snapshot: { schemaVersion: 1, graph: {} },
    }));
    await deleteWorkflow(engine.store, 'inbox-triage');
    own.launch(run);
    await own.idle();
    expect(await getRun(engine.store, run.id)).toMatchObject({
      status: 'failed',
      dispatch: null,
      snapshot: null,
    });
    const finished = (await listAudit(engine.store)).filter(
      (e) => e.run_id === run.id && e.outcome === 'run_finished',
    );
    expect(finished.map((e) => e.detail)).toEqual([expect.stringMatching(/^failed: .*no workflow/)]);
  });
});
