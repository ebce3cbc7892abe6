/**
 * What opening and answering one decision page costs in DynamoDB requests (every request
 * counted by a middleware on the client, as bench/lambda-loop.ts counts them), on dynalite
 * (no transactions) and on DynamoDB Local (transactions, as on AWS). The counts are
 * deterministic: a change that reads the workspace's whole decision list, reads a record
 * twice or writes one record in two requests fails here.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { getDecision, listPending, runDecisionPrefix } from '../../shared/runs/decision-repository.ts';
import { listProposals } from '../../shared/runs/domain-proposals.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { createApp } from '../../shared/web/app.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { signDecisionToken } from '../../shared/links/decision-token.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';
import { READ_COMMANDS, recordRequests, type SentRequest } from '../support/dynamodb-requests.ts';
import { engineFixture, eventWorkflowYaml, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = Buffer.alloc(32, 7); // the fixture's link key
const READS = READ_COMMANDS;
type Sent = SentRequest;

const BACKENDS = [
  { name: 'dynalite', start: startDynalite, transactions: false },
  { name: 'DynamoDB Local', start: startDynamoDbLocal, transactions: true },
];

describe.each(BACKENDS)('DynamoDB requests of a decision page on $name', ({ start, transactions }) => {
  let dynamodb: { endpoint: string; stop(): Promise<void> };
  let client: DynamoDBClient;
  let fixture: EngineFixture | undefined;
  const sent: Sent[] = [];
  beforeAll(async () => {
    dynamodb = await start();
    client = dynaliteClient(dynamodb.endpoint);
    recordRequests(client, sent);
  });
  afterEach(() => fixture?.cleanup());
  afterAll(async () => {
    client.destroy();
    await dynamodb.stop();
  });

  /** A run paused on DynamoDB with every item unsure; the learner is the offline model. */
  async function pausedRun(source: 'maildir' | 'webhook', senders: string[]) {
    const table = `handoff-page-${randomUUID()}`;
    await ensureTable(client, table);
    const store = new DynamoDbStore(createDocumentClient(client), table);
    const action = source === 'maildir' ? 'archive' : 'file_ticket';
    const executor = executorScript(() => ({ action, confidence: 0.3, reasoning: 'unsure' }));
    fixture = await engineFixture({
      store,
      messages: senders.map((from) => mail({ from, subject: `Hello from ${from}` })),
      model: () => new ScriptedModel(executor),
    });
    fixture.deps.models = async (role) =>
      role === 'fallback' ? new OfflineModel() : new ScriptedModel(executor);
    if (source === 'maildir') await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    else {
      // Its own threshold, as every template has: the page needs no stored setting.
      const hooks = parseWorkflow(eventWorkflowYaml('hooks'), 'hooks.yaml');
      await saveWorkflow(store, { ...hooks, confidence_threshold: 0.7 });
      const items = senders.map((sender, i) => ({ id: `item-${i}`, sender, subject: `Report ${i}` }));
      await startRun(fixture.deps, 'hooks', { kind: 'webhook', detail: JSON.stringify({ items }) });
    }
    const app = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir }),
      linkKey: { get: async () => KEY },
      requireToken: true,
    });
    const pending = await listPending(store);
    expect(pending).toHaveLength(senders.length);
    return { app, store, pending, action };
  }

  /** Opens a decision's signed page and answers it: the requests of each. */
  async function openAndAnswer(app: ReturnType<typeof createApp>, id: string, action: string) {
    const decision = await getDecision(fixture!.store, id);
    const token = signDecisionToken(KEY, id, new Date(decision.expires_at));
    sent.length = 0;
    const opened = await app.request(`/decide/${id}?token=${token}`);
    const onOpen = sent.splice(0);
    const answered = await app.request(`/decide/${id}`, {
      method: 'POST',
      body: new URLSearchParams({ token, action }),
    });
    const onAnswer = sent.splice(0);
    expect(opened.status).toBe(200);
    expect(answered.status).toBe(200);
    return { opened: await opened.text(), answered: await answered.text(), onOpen, onAnswer };
  }

  // An answer's one batch: its workflow, run, domain answers, the rule-keys marker and the nine
  // keys its sender's rules can be under (address, domain, keywords; the workflow's, its
  // mailbox's and every workflow's), the learner's usage and an earlier learning failure.
  const RULE_KEYS_BATCH = `BatchGetItemCommand default#workflows,default#runs,default#domain_answers,default#domain_answers,default#settings,${Array(9).fill('default#rule_keys').join(',')},default#usage,default#usage_days,default#learning_failures`;
  const reads = (requests: Sent[]) => requests.filter((r) => READS.has(r.command));
  const writes = (requests: Sent[]) => requests.filter((r) => !READS.has(r.command));
  const shape = (r: Sent) =>
    `${r.command} ${r.keys ? r.keys.map((k) => k.split('/')[0]).join(',') : r.pk}${r.prefix ? ' (prefix)' : ''}`;
  const wholeDecisionLists = (requests: Sent[]) =>
    requests.filter((r) => r.command === 'QueryCommand' && r.pk === 'default#decisions' && !r.prefix);

  it(`opens a page in 1 read and answers it in ${transactions ? 3 : 4}, reading nothing twice and no whole collection`, async () => {
    // Prepare: four questions from four domains, the first answered (the workspace's first
    // answer gathers the earlier answers by domain, once: the only whole-list read).
    const senders = ['ann@one.example', 'bob@two.example', 'cy@three.example', 'di@four.example'];
    const { app, pending, action } = await pausedRun('webhook', senders);
    expect(pending[0]!.id.startsWith(runDecisionPrefix(pending[0]!.run_id))).toBe(true);
    const first = await openAndAnswer(app, pending[0]!.id, action);
    expect(wholeDecisionLists(first.onAnswer)).toHaveLength(1);
    // ... and the rules are never listed whole: the workspace's first rules are checked to be
    // its only ones (a page of what was written plus one) before it is marked as read by key.
    const ruleQueries = first.onAnswer.filter(
      (r) => r.command === 'QueryCommand' && r.pk === 'default#rules',
    );
    expect(ruleQueries.length).toBeGreaterThan(0);
    for (const q of ruleQueries) expect(q.limit).toBeLessThanOrEqual(3);

    // Act: open and answer the second.
    const second = await openAndAnswer(app, pending[1]!.id, action);

    // Assess: the page and the answer worked ...
    expect(second.opened).toContain('and 2 more after this');
    expect(second.opened).toContain('Webhook items'); // the workflow's name, kept on the decision
    expect(second.answered).toContain('Next question from this run');
    expect((await listPending(fixture!.store)).map((d) => d.id)).not.toContain(pending[1]!.id);
    // ... opening: the decision with its run's questions, by the run's key the id carries (a
    // waiting decision's link cannot have been spent; the workflow and the settings are not read);
    expect(second.onOpen.map(shape)).toEqual(['QueryCommand default#decisions (prefix)']);
    // ... answering: the decision with the run's questions still waiting; the workflow, the
    // run, the domain's answers (and the gathered marker), the rule-keys marker with the keys
    // of the sender's address, domain and keyword rules (the workflow's and every workflow's)
    // and the learner's usage in one batch. The link is spent
    // by the answer's own write (no read), and with transactions the newest question still
    // waiting is checked in that write, so what still waits needs no read after; without
    // them it is read again. Nothing else: the rules are not listed.
    // Others still wait, so the item is carried out at once (issue 29): its hold is read to be
    // taken over by the claim (one more read, of the item's outcome record; nothing else).
    expect(reads(second.onAnswer).map(shape)).toEqual([
      'QueryCommand default#decisions (prefix)',
      RULE_KEYS_BATCH,
      ...(transactions ? [] : ['QueryCommand default#decisions (prefix)']),
      expect.stringMatching(/^BatchGetItemCommand default#outcomes#\d+$/),
    ]);
    expect(wholeDecisionLists(second.onAnswer)).toEqual([]);
    // On DynamoDB the answer, the spent link and the domain's answers are one
    // TransactWriteItems; dynalite has none, so there they follow each other.
    expect(
      writes(second.onAnswer)
        .map(shape)
        .slice(0, transactions ? 1 : 3),
    ).toEqual(
      transactions
        ? ['TransactWriteItemsCommand ']
        : [
            'PutItemCommand default#decisions',
            'PutItemCommand default#tokens',
            'PutItemCommand default#domain_answers',
          ],
    );
    // (the learned rule and its workflow's copy of the live rules: one more without transactions;
    // carrying the item out: its claim, its record (the ticket filed, its artifact, its audit
    // entry and settled claim: one write with transactions, four without), the run's counts;
    // the learner's usage goes into its day's roll-up too: one more write without transactions)
    expect(writes(second.onAnswer).length).toBeLessThanOrEqual(transactions ? 3 + 3 : 7 + 7);
  });

  it("reads the workflow too when the page shows a Maildir message in full, or the decision predates the workflow's view", async () => {
    // Prepare: a Maildir run (its page reads the message through the workflow's folder).
    const { app, store, pending, action } = await pausedRun('maildir', [
      'ann@one.example',
      'bob@two.example',
    ]);

    // Act: open the first; then strip the second of what it keeps of its workflow, as a
    // decision asked before it was kept, and open that.
    const maildir = await openAndAnswer(app, pending[0]!.id, action);
    const older = await getDecision(store, pending[1]!.id);
    const { workflow_view: _kept, ...withoutView } = older;
    await store.update('decisions', withoutView, older.version);
    const legacy = await openAndAnswer(app, pending[1]!.id, action);

    // Assess: each page read the workflow once (and, as it has no threshold of its own, the
    // stored setting), and showed its name and the full message.
    for (const page of [maildir, legacy]) {
      expect(page.onOpen.map(shape)).toEqual([
        'QueryCommand default#decisions (prefix)',
        'GetItemCommand default#workflows',
        'GetItemCommand default#settings',
      ]);
      expect(page.opened).toContain('Test inbox');
    }
    expect(maildir.opened).toContain(`Hello from ${pending[0]!.sender}`); // its own message
  });

  it('a domain proposal reads the answers of its domain by key, never every decision', async () => {
    // Prepare: two senders of one domain, the first answered (after which the workspace's
    // answers are gathered), and a third question left waiting, so the answer resumes nothing.
    const senders = ['ann@partner.example', 'bob@partner.example', 'cy@other.example'];
    const { app, pending, action } = await pausedRun('webhook', senders);
    const [ann, bob] = senders.map((sender) => pending.find((d) => d.sender === sender)!);
    await openAndAnswer(app, ann!.id, action);

    // Act: the second answer agrees with the first: a proposal is due.
    const { onAnswer } = await openAndAnswer(app, bob!.id, action);

    // Assess: proposed, with both answers as evidence, from the two decisions read by key.
    const [proposal] = await listProposals(fixture!.store);
    expect(proposal).toMatchObject({ domain: 'partner.example', action, status: 'proposed' });
    expect(proposal!.evidence.map((e) => e.sender).sort()).toEqual(senders.slice(0, 2));
    expect(wholeDecisionLists(onAnswer)).toEqual([]);
    // The answered decision is read with its run's questions and known from its own commit
    // after; the other one, answered in the same run, came with that read: none by key.
    const decisionKeys = reads(onAnswer)
      .flatMap((r) => r.keys ?? [])
      .filter((k) => k.startsWith('default#decisions/'));
    expect(decisionKeys).toEqual([]);
  });

  it('a spent link is refused, opened or answered again, its spent record read only then', async () => {
    // Prepare: a question answered through its link.
    const { app, pending, action } = await pausedRun('webhook', ['ann@one.example', 'bob@two.example']);
    const id = pending[0]!.id;
    const token = signDecisionToken(KEY, id, new Date(pending[0]!.expires_at));
    await app.request(`/decide/${id}`, { method: 'POST', body: new URLSearchParams({ token, action }) });
    sent.length = 0;

    // Act: the same link, opened and posted again.
    const opened = await app.request(`/decide/${id}?token=${token}`);
    const onOpen = sent.splice(0);
    const posted = await app.request(`/decide/${id}`, {
      method: 'POST',
      body: new URLSearchParams({ token, action }),
    });
    const onPost = sent.splice(0);

    // Assess: refused with the same words both times, nothing written; the decision (no
    // longer waiting) with its run's questions, then the spent record.
    for (const response of [opened, posted]) {
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('already used');
    }
    for (const requests of [onOpen, onPost])
      expect(requests.map(shape)).toEqual([
        'QueryCommand default#decisions (prefix)',
        'GetItemCommand default#tokens',
      ]);
  });

  it('the last answer takes the run for its resume reading only the interrupt beyond its own reads', async () => {
    // Prepare: two questions, the first answered.
    const { app, pending, action } = await pausedRun('webhook', ['ann@one.example', 'bob@two.example']);
    await openAndAnswer(app, pending[0]!.id, action);

    // Act: the last answer.
    const { onAnswer, answered } = await openAndAnswer(app, pending[1]!.id, action);

    // Assess: the run went on; up to taking it (its first write to the run), the answer read
    // the decision with its run's questions, its batch, and the interrupt: not the run again,
    // nor the interrupt's questions (it saw every one of them decided).
    expect(answered).not.toContain('Next question from this run');
    const take = onAnswer.findIndex((r) => r.pk === 'default#runs' && !READS.has(r.command));
    expect(reads(onAnswer.slice(0, take)).map(shape)).toEqual([
      'QueryCommand default#decisions (prefix)',
      RULE_KEYS_BATCH,
      'GetItemCommand default#interrupts',
    ]);
  });
});
