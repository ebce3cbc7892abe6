/** The shared handler bodies on their edges (a JSON-file store; the loop test covers DynamoDB). */
import { afterEach, describe, expect, it } from '@jest/globals';
import { stepHandler, triggerScheduledRun } from '../../shared/aws/lambda-handlers.ts';
import { recordStepFailure } from '../../shared/aws/step-failure.ts';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { loadEnv } from '../../shared/config/env.ts';
import type { Step } from '../../shared/runs/dispatch.ts';
import { failRun } from '../../shared/runs/lifecycle.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { pauseUntilSet } from '../../shared/schedules/schedules.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import type { WorkflowChange } from '../../shared/web/workflow-routes.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, eventWorkflowYaml, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { asIamCaller, failureRecord, UI } from './support.ts';
import { defaultOnly } from '../support/dispatch-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

async function dispatched() {
  const steps: { run_id: string; node: Step }[] = [];
  fixture = await engineFixture({
    messages: [mail({ from: 'a@x.example', subject: 'Unsure' })],
    model: () =>
      new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.2, reasoning: 'r' }))),
  });
  fixture.deps.dispatcher = { dispatch: async (step) => void steps.push(step) };
  return steps;
}
const stepEvent = (run_id: string, node: Step) => ({
  'detail-type': 'handoff.step',
  detail: { run_id, node },
});

describe('step functions', () => {
  it('ignore a step meant for another node, and refuse an event that is not a step', async () => {
    await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const before = await getRun(fixture.store, run.id);
    const completer = stepHandler(defaultOnly(fixture.deps), 'completer');
    expect(await completer(stepEvent(run.id, 'executor'))).toMatchObject({ ignored: true });
    expect(await getRun(fixture.store, run.id)).toEqual(before);
    await expect(completer({ detail: { run_id: run.id } })).rejects.toThrow(
      /^not a handoff.step event: detail-type/,
    );
    await expect(triggerScheduledRun(defaultOnly(fixture.deps), { workflow_id: 'inbox' })).rejects.toThrow(
      /^not a schedule input .*schedule/,
    );
  });
});

describe('the trigger function', () => {
  it('starts no run for a workflow paused in the store whose EventBridge schedule still fires', async () => {
    // Prepare: paused for a credential deleted where no schedule event followed (the CLI on a deployed table).
    const steps = await dispatched();
    await pauseUntilSet(fixture.store, 'inbox', ['mail_password']);

    // Act
    const fired = await triggerScheduledRun(defaultOnly(fixture.deps), {
      workflow_id: 'inbox',
      schedule: 'cron(0 8 * * ? *)',
    });

    // Assess: said why, and nothing started or was dispatched.
    expect(fired).toEqual({
      ignored: true,
      reason: 'workflow inbox is paused: its schedule fired, no run started',
    });
    expect(await listRuns(fixture.store)).toEqual([]);
    expect(steps).toEqual([]);
  });
});

describe('workspaces on AWS', () => {
  it("runs a step in the workspace its event names (none: default), and a schedule's run in its workspace", async () => {
    await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const asked: string[] = [];
    const engineOf = (workspace: string) => (asked.push(workspace), fixture.deps);
    await stepHandler(
      engineOf,
      'executor',
    )({
      ...stepEvent(run.id, 'executor'),
      detail: { run_id: run.id, node: 'executor', workspace: 'team-b' },
    });
    await stepHandler(engineOf, 'completer')(stepEvent(run.id, 'completer'));
    await triggerScheduledRun(engineOf, {
      workflow_id: 'inbox',
      schedule: 'rate(1 hour)',
      workspace: 'team-c',
    });
    expect(asked).toEqual(['team-b', 'default', 'team-c']);
  });
});

describe('step-failed', () => {
  it('leaves a waiting run answerable, and a run moved on to another step alone', async () => {
    const steps = await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    expect(steps.at(-1)).toEqual({ run_id: run.id, node: 'executor' });
    // The executor's retries were exhausted, but a late record names the completer: not this step.
    const late = await recordStepFailure(
      defaultOnly(fixture.deps),
      failureRecord(stepEvent(run.id, 'completer'), 'x'),
    );
    expect(late).toMatchObject({ marked: false, why: 'moved_on' });

    await stepHandler(defaultOnly(fixture.deps), 'executor')(stepEvent(run.id, 'executor'));
    expect((await getRun(fixture.store, run.id)).status).toBe('waiting');
    const waiting = await failRun(fixture.deps, run.id, 'SNS is down', { step: 'executor' });
    expect(waiting).toMatchObject({ marked: false, why: 'waiting' });
    expect((await getRun(fixture.store, run.id)).status).toBe('waiting');
    expect(await failRun(fixture.deps, 'run_nope', 'x')).toEqual({
      marked: false,
      run: null,
      why: 'missing',
    });
  });

  it('marks a step of another workspace failed in that workspace, and tells the person there; the default workspace is untouched', async () => {
    await dispatched();
    const teamB = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'Unsure' })],
      model: () =>
        new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.2, reasoning: 'r' }))),
    });
    try {
      teamB.deps.dispatcher = { dispatch: async () => {} };
      const run = await startRun(teamB.deps, 'inbox', { kind: 'manual', detail: null });
      const depsOf = (workspace: string) => (workspace === 'team-b' ? teamB.deps : fixture.deps);
      const step = {
        'detail-type': 'handoff.step',
        detail: { run_id: run.id, node: 'executor', workspace: 'team-b' },
      };
      const result = await recordStepFailure(depsOf, failureRecord(step, 'DynamoDB throttled'));
      expect(result).toMatchObject({ run_id: run.id, marked: true, why: 'failed' });
      expect(await getRun(teamB.store, run.id)).toMatchObject({ status: 'failed' });
      expect(teamB.notices).toEqual([
        expect.objectContaining({
          kind: 'failed',
          runId: run.id,
          reason: expect.stringContaining('DynamoDB throttled'),
        }),
      ]);
      expect(fixture.notices).toEqual([]);
      expect(await fixture.store.get('runs', run.id)).toBeUndefined();
    } finally {
      await teamB.cleanup();
    }
  });

  it('tells of a schedule sync that gave up, in its workspace, with the reason and the Schedules page', async () => {
    await dispatched();
    const change = { 'detail-type': 'handoff.workflow', detail: { workflow_id: 'inbox', change: 'saved' } };
    const record = failureRecord(
      change,
      'ThrottlingException: Rate exceeded',
      'arn:aws:lambda:us-east-1:123456789012:function:handoff-schedule-sync',
    );
    expect(await recordStepFailure(defaultOnly(fixture.deps), record)).toMatchObject({
      run_id: null,
      marked: false,
      why: 'schedule_failed',
    });
    expect(fixture.notices).toEqual([
      {
        kind: 'schedule_failed',
        workflowName: fixture.workflow.name,
        reason: 'handoff-schedule-sync gave up after 3 attempts: Error: ThrottlingException: Rate exceeded',
        link: 'http://ui.test/schedules',
      },
    ]);
  });

  it('reads the record inside an EventBridge destination event; logs failures that are not run steps', async () => {
    await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const record = failureRecord(stepEvent(run.id, 'executor'), 'DynamoDB throttled');
    const wrapped = { 'detail-type': 'Lambda Function Invocation Result - Failure', detail: record };
    expect(await recordStepFailure(defaultOnly(fixture.deps), wrapped)).toMatchObject({
      run_id: run.id,
      marked: true,
    });
    expect((await getRun(fixture.store, run.id)).error).toMatch(
      /^handoff-executor gave up after 3 attempts: Error: /,
    );

    const trigger = failureRecord({ workflow_id: 'gone', schedule: 'rate(1 hour)' }, 'no workflow "gone"');
    expect(await recordStepFailure(defaultOnly(fixture.deps), trigger)).toMatchObject({
      run_id: null,
      marked: false,
      why: 'not_a_run_step',
      reason: expect.stringContaining('no workflow "gone"'),
    });
    const expired = { ...record, requestContext: { condition: 'EventAgeExceeded' }, responsePayload: null };
    expect((await recordStepFailure(defaultOnly(fixture.deps), expired)).reason).toBe(
      'a function gave up: EventAgeExceeded',
    );
  });
});

describe('workflow routes', () => {
  it('save JSON or YAML, refuse a mismatched or invalid body, remove, and announce each change', async () => {
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: '' })) });
    const changes: [string, WorkflowChange][] = [];
    const { app } = lambdaWebApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir, UI_BASE_URL: UI }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
      onWorkflowChange: async (id, change) => void changes.push([id, change]),
    });
    const put = (id: string, body: string, type: string) =>
      asIamCaller(app, `${UI}/api/workflows/${id}`, {
        method: 'PUT',
        body,
        headers: { 'Content-Type': type },
      });
    const yaml = eventWorkflowYaml('second'); // a Lambda takes no Maildir workflow

    expect((await put('second', yaml, 'application/yaml')).status).toBe(201);
    const json = JSON.stringify({ ...(await getWorkflow(fixture.store, 'second')), name: 'Renamed' });
    const replaced = await put('second', json, 'application/json');
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({ id: 'second', name: 'Renamed', trigger: { webhook: true } });

    const mismatch = await put('other', yaml, 'text/plain');
    expect(mismatch.status).toBe(422);
    expect(await mismatch.json()).toEqual({
      error: 'body: id "second" does not match the path\'s workflow id "other"',
    });
    const invalid = await put(
      'second',
      yaml.replace('trigger: { webhook: true }', 'trigger: {}'),
      'text/yaml',
    );
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { error: string }).error).toMatch(/^body.yaml: trigger: needs one of/);
    expect((await put('second', 'x'.repeat(300 * 1024), 'text/yaml')).status).toBe(413);

    expect((await asIamCaller(app, `${UI}/api/workflows/second`, { method: 'DELETE' })).status).toBe(204);
    expect((await asIamCaller(app, `${UI}/api/workflows/second`, { method: 'DELETE' })).status).toBe(404);
    expect(changes).toEqual([
      ['second', 'saved'],
      ['second', 'saved'],
      ['second', 'removed'],
    ]);
  });
});
