/**
 * What each Lambda step of a run reads from DynamoDB (dynalite, every request counted by a
 * middleware on the client, as bench/lambda-loop.ts counts them). A step reads what it needs
 * at its start in batches and never reads a record twice: a change that re-reads the run,
 * the workflow or the settings, or makes the completer read rules or held items, fails here.
 * The recorder's session chunks and the claims (outcomes) are counted by their own tests.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { stepHandler, triggerScheduledRun } from '../../shared/aws/lambda-handlers.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import type { Step } from '../../shared/runs/dispatch.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { defaultOnly, dispatchFixture } from '../support/dispatch-fixture.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { READ_COMMANDS, recordRequests, type SentRequest } from '../support/dynamodb-requests.ts';
import type { EngineFixture } from '../support/engine-fixture.ts';

const READS = READ_COMMANDS;
/** Collections other tests count: the recorder's session chunks, the claims. */
const ELSEWHERE = ['#sessions', '#outcomes'];

const stepEvent = (run_id: string, node: Step) => ({
  'detail-type': 'handoff.step',
  detail: { run_id, node },
});

describe('DynamoDB reads of each Lambda step', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  let client: DynamoDBClient;
  let fixture: EngineFixture | undefined;
  const sent: SentRequest[] = [];
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynaliteClient(dynalite.endpoint);
    recordRequests(client, sent);
  });
  afterEach(() => fixture?.cleanup());
  afterAll(async () => {
    client.destroy();
    await dynalite.stop();
  });

  /** The reads of one call, without the collections counted elsewhere, as `command collection,...`. */
  async function readsOf(call: () => Promise<unknown>): Promise<{ shapes: string[]; keys: string[] }> {
    sent.length = 0;
    await call();
    // A Query names its partition; a read by key, its keys.
    const keysOf = (r: SentRequest) => r.keys ?? [r.pk];
    const reads = sent
      .filter((r) => READS.has(r.command))
      .map((r) => ({ command: r.command, keys: keysOf(r) }))
      .filter((r) => !r.keys.some((k) => ELSEWHERE.some((c) => k.includes(c))));
    const collection = (k: string) => k.split('/')[0]!.replace(/^default#/, '');
    return {
      shapes: reads.map((r) => `${r.command} ${r.keys.map(collection).join(',')}`),
      keys: reads.flatMap((r) => (r.command === 'QueryCommand' ? [] : r.keys)),
    };
  }

  it('each step reads its run, settings and workflow once, in batches; the completer reads no rules or held items', async () => {
    // Prepare: a scheduled workflow over two messages (one sure, one asked) on DynamoDB, each node its own step.
    const table = `handoff-steps-${randomUUID()}`;
    await ensureTable(client, table);
    const made = await dispatchFixture(new DynamoDbStore(createDocumentClient(client), table));
    fixture = made.fixture;
    const engineOf = defaultOnly(fixture.deps);
    const step = (node: Step, runId: string) => stepHandler(engineOf, node)(stepEvent(runId, node));

    // Act: the trigger, the executor (which pauses), the answer, the resume and the completer.
    const trigger = await readsOf(() =>
      triggerScheduledRun(engineOf, { workflow_id: 'inbox', schedule: 'cron(0 8 * * ? *)' }),
    );
    const runId = made.sent[0]!.run_id;
    const executor = await readsOf(() => step('executor', runId));
    const [decision] = await listPending(fixture.store);
    await decide(fixture.deps, decision!.id, 'file_ticket', null);
    const resume = await readsOf(() => step('resume', runId));
    const completer = await readsOf(() => step('completer', runId));

    // Assess: the run went through ...
    expect(await getRun(fixture.store, runId)).toMatchObject({ status: 'completed' });
    expect(made.sent.map((s) => s.node)).toEqual(['executor', 'resume', 'completer']);
    // ... the trigger: the workflow, settings, profile and its schedule's state in one batch; the held items;
    expect(trigger.shapes).toEqual([
      'BatchGetItemCommand workflows,settings,profile,schedules',
      'QueryCommand decisions#pending',
    ]);
    // ... each step: its run, settings, profile and the rule-keys marker in one batch, then what
    // the run names (workflow, interrupt, usage) in another; the executor and resume read the
    // held items for the gate, and the rules by what they match, a page of items at a time (a
    // workspace with no rule yet sees so with a page of one: no rule of an earlier build is
    // unindexed); resume reads the interrupt's decisions (one here) in one read;
    expect(executor.shapes).toEqual([
      'BatchGetItemCommand runs,settings,profile,settings',
      'BatchGetItemCommand workflows,usage,usage_days',
      'QueryCommand decisions#pending',
      'QueryCommand rules',
      `BatchGetItemCommand ${Array(12).fill('rule_keys').join(',')}`,
    ]);
    expect(resume.shapes).toEqual([
      'BatchGetItemCommand runs,settings,profile,settings',
      'BatchGetItemCommand workflows,interrupts,usage,usage_days',
      'GetItemCommand decisions',
      'QueryCommand decisions#pending',
      'QueryCommand rules',
    ]);
    // ... the completer: the run's audit once (one query per shard), for the report of what was
    // done to which item;
    expect(completer.shapes).toEqual([
      'BatchGetItemCommand runs,settings,profile,settings',
      'BatchGetItemCommand workflows,interrupts,usage,usage_days',
      ...Array.from({ length: 8 }, (_, shard) => `QueryCommand audit#${shard}`),
      // ... and, as the run finishes, the running totals it is folded into (run-totals.ts).
      'GetItemCommand settings',
      'QueryCommand runs#time',
    ]);
    // ... and no step reads one record twice.
    for (const reads of [trigger, executor, resume, completer])
      expect(reads.keys.length).toBe(new Set(reads.keys).size);
  });
});
