import 'aws-sdk-client-mock-jest';
import {
  AccessDeniedException,
  BatchCreateMemoryRecordsCommand,
  BatchDeleteMemoryRecordsCommand,
  BedrockAgentCoreClient,
  type MemoryRecordCreateInput,
} from '@aws-sdk/client-bedrock-agentcore';
import {
  BedrockAgentCoreControlClient,
  ConflictException,
  CreateMemoryCommand,
  GetMemoryCommand,
  ListMemoriesCommand,
  type Memory,
} from '@aws-sdk/client-bedrock-agentcore-control';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from '@jest/globals';
import {
  AgentCoreMemoryMirror,
  encodedPreferenceKey,
  memoryRecordsFor,
  mirrorFromEnv,
  namespaceSegment,
  preferenceKey,
  requestIdentifier,
} from '../../shared/memory/agentcore-mirror.ts';
import { noMirror } from '../../shared/memory/mirror.ts';
import { RuleSchema, type Rule } from '../../shared/records/rule.ts';

/** AgentCore's own patterns, verbatim from the API reference, anchored. */
const AWS_NAMESPACE = /^[a-zA-Z0-9/*][a-zA-Z0-9-_/*]*(?::[a-zA-Z0-9-_/*]+)*[a-zA-Z0-9-_/*]*$/;
const AWS_REQUEST_ID = /^[a-zA-Z0-9_-]+$/;
const AWS_CLIENT_TOKEN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}$/;

const MEMORY_ID = 'handoff_rules-AbCdE12345';
const PREF_ID = 'handoff_preferences-Pq1Rs2Tu3V';
const FACT_ID = 'handoff_semantic-Wx4Yz5Ab6C';
const RECORD_1 = `mem-${'a'.repeat(36)}`;
const RECORD_2 = `mem-${'b'.repeat(36)}`;

const data = mockClient(BedrockAgentCoreClient);
const control = mockClient(BedrockAgentCoreControlClient);

function rule(over: Partial<Rule> = {}): Rule {
  return RuleSchema.parse({
    id: 'rule_01',
    workflow_id: 'inbox',
    match: { domain: 'vendor.com' },
    action: 'archive',
    source: 'learned',
    note: 'their newsletters never need me',
    confidence: 0.9,
    decision_id: 'dec_42',
    item_id: 'item_7',
    created_at: '2026-02-03T04:05:06.000Z',
    ...over,
  });
}

function memory(status: Memory['status'], id = MEMORY_ID): Memory {
  return {
    arn: `arn:aws:bedrock-agentcore:us-east-1:123456789012:memory/${id}`,
    id,
    name: 'handoff_rules',
    eventExpiryDuration: 90,
    status,
    createdAt: new Date(),
    updatedAt: new Date(),
    strategies: [
      {
        strategyId: PREF_ID,
        name: 'handoff_preferences',
        type: 'USER_PREFERENCE',
        namespaces: undefined,
        namespaceTemplates: ['/handoff/{actorId}/preferences'],
      },
      {
        strategyId: FACT_ID,
        name: 'handoff_semantic',
        type: 'SEMANTIC',
        namespaces: undefined,
        namespaceTemplates: ['/handoff/{actorId}/facts'],
      },
    ],
  };
}

interface Harness {
  mirror: AgentCoreMemoryMirror;
  logs: string[];
  sleeps: number[];
}

function harness(opts: { memoryId?: string } = {}): Harness {
  const logs: string[] = [];
  const sleeps: number[] = [];
  const mirror = new AgentCoreMemoryMirror({
    data: new BedrockAgentCoreClient({ region: 'us-east-1' }),
    control: new BedrockAgentCoreControlClient({ region: 'us-east-1' }),
    actorId: 'ana',
    log: (line) => logs.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...opts,
  });
  return { mirror, logs, sleeps };
}

function createdOk(): void {
  data.on(BatchCreateMemoryRecordsCommand).resolves({
    successfulRecords: [
      { memoryRecordId: RECORD_1, status: 'SUCCEEDED', requestIdentifier: 'rule_01-pref' },
      { memoryRecordId: RECORD_2, status: 'SUCCEEDED', requestIdentifier: 'rule_01-fact' },
    ],
    failedRecords: [],
  });
}

function sentRecords(call = 0): MemoryRecordCreateInput[] {
  const input = data.commandCalls(BatchCreateMemoryRecordsCommand)[call]?.args[0].input;
  return input?.records ?? [];
}

beforeEach(() => {
  data.reset();
  control.reset();
});

describe('finding or creating the memory', () => {
  it('creates the memory with a user-preference and a semantic strategy when none exists, then polls until ACTIVE', async () => {
    control
      .on(ListMemoriesCommand)
      .resolvesOnce({
        memories: [
          { id: 'other_memory-Zz9Yy8Xx7W', status: 'ACTIVE', createdAt: undefined, updatedAt: undefined },
        ],
        nextToken: 'page-2',
      })
      .resolvesOnce({
        memories: [
          {
            id: 'handoff_rules_old-Zz9Yy8Xx7W',
            status: 'ACTIVE',
            createdAt: undefined,
            updatedAt: undefined,
          },
        ],
      });
    control.on(CreateMemoryCommand).resolves({ memory: memory('CREATING') });
    control
      .on(GetMemoryCommand)
      .resolvesOnce({ memory: memory('CREATING') })
      .resolvesOnce({ memory: memory('CREATING') })
      .resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror, sleeps, logs } = harness();

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([RECORD_1, RECORD_2]);

    expect(control).toHaveReceivedCommandTimes(ListMemoriesCommand, 2);
    expect(control).toHaveReceivedNthSpecificCommandWith(2, ListMemoriesCommand, { nextToken: 'page-2' });
    expect(control).toHaveReceivedCommandTimes(CreateMemoryCommand, 1);
    const create = control.commandCalls(CreateMemoryCommand)[0]!.args[0].input;
    expect(create).toEqual({
      clientToken: expect.stringMatching(AWS_CLIENT_TOKEN),
      name: 'handoff_rules',
      description: expect.any(String),
      eventExpiryDuration: 90,
      memoryStrategies: [
        {
          userPreferenceMemoryStrategy: {
            name: 'handoff_preferences',
            description: expect.any(String),
            namespaceTemplates: ['/handoff/{actorId}/preferences'],
          },
        },
        {
          semanticMemoryStrategy: {
            name: 'handoff_semantic',
            description: expect.any(String),
            namespaceTemplates: ['/handoff/{actorId}/facts'],
          },
        },
      ],
    });
    expect(create.clientToken!.length).toBeGreaterThanOrEqual(33);
    expect(control).toHaveReceivedCommandTimes(GetMemoryCommand, 3);
    expect(control).toHaveReceivedCommandWith(GetMemoryCommand, { memoryId: MEMORY_ID });
    expect(sleeps).toHaveLength(2);
    expect(data).toHaveReceivedCommandWith(BatchCreateMemoryRecordsCommand, { memoryId: MEMORY_ID });
    expect(logs).toEqual([`handoff: agentcore memory: created memory ${MEMORY_ID}`]);
  });

  it('uses the memory ListMemories finds (on a later page) and creates nothing', async () => {
    control
      .on(ListMemoriesCommand)
      .resolvesOnce({ memories: [], nextToken: 't' })
      .resolvesOnce({
        memories: [
          { id: 'handoff_rules-Old0000000', status: 'DELETING', createdAt: undefined, updatedAt: undefined },
          { id: MEMORY_ID, status: 'ACTIVE', createdAt: undefined, updatedAt: undefined },
        ],
      });
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror } = harness();

    await mirror.ruleLearned(rule());

    expect(control).not.toHaveReceivedCommand(CreateMemoryCommand);
    expect(control).toHaveReceivedCommandTimes(GetMemoryCommand, 1);
    expect(control).toHaveReceivedCommandWith(GetMemoryCommand, { memoryId: MEMORY_ID });
    expect(data).toHaveReceivedCommandWith(BatchCreateMemoryRecordsCommand, { memoryId: MEMORY_ID });
  });

  it('uses a given memoryId without listing or creating', async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE', 'given_memory-0123456789') });
    createdOk();
    const { mirror } = harness({ memoryId: 'given_memory-0123456789' });

    await mirror.ruleLearned(rule());

    expect(control).not.toHaveReceivedCommand(ListMemoriesCommand);
    expect(control).not.toHaveReceivedCommand(CreateMemoryCommand);
    expect(control).toHaveReceivedCommandWith(GetMemoryCommand, { memoryId: 'given_memory-0123456789' });
    expect(data).toHaveReceivedCommandWith(BatchCreateMemoryRecordsCommand, {
      memoryId: 'given_memory-0123456789',
    });
  });

  it('resolves the memory once per process', async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleLearned(rule());
    await mirror.ruleLearned(rule({ id: 'rule_02' }));

    expect(control).toHaveReceivedCommandTimes(GetMemoryCommand, 1);
    expect(data).toHaveReceivedCommandTimes(BatchCreateMemoryRecordsCommand, 2);
  });

  it('two concurrent first uses create the memory once', async () => {
    control.on(ListMemoriesCommand).resolves({ memories: [] });
    control.on(CreateMemoryCommand).resolves({ memory: memory('CREATING') });
    control
      .on(GetMemoryCommand)
      .resolvesOnce({ memory: memory('CREATING') })
      .resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror } = harness();

    const [a, b] = await Promise.all([
      mirror.ruleLearned(rule()),
      mirror.ruleLearned(rule({ id: 'rule_02', match: { sender: 'bo@shop.example' } })),
    ]);

    expect(a).toHaveLength(2);
    expect(b).toHaveLength(2);
    expect(control).toHaveReceivedCommandTimes(ListMemoriesCommand, 1);
    expect(control).toHaveReceivedCommandTimes(CreateMemoryCommand, 1);
    expect(data).toHaveReceivedCommandTimes(BatchCreateMemoryRecordsCommand, 2);
  });

  it('when another process created the memory first (ConflictException), lists again and uses it', async () => {
    control
      .on(ListMemoriesCommand)
      .resolvesOnce({ memories: [] })
      .resolves({
        memories: [{ id: MEMORY_ID, status: 'CREATING', createdAt: undefined, updatedAt: undefined }],
      });
    control
      .on(CreateMemoryCommand)
      .rejects(new ConflictException({ message: 'exists', $metadata: { httpStatusCode: 409 } }));
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror } = harness();

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([RECORD_1, RECORD_2]);
    expect(control).toHaveReceivedCommandTimes(ListMemoriesCommand, 2);
  });

  it('a memory that FAILED is logged and nothing is written', async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('FAILED') });
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([]);

    expect(data).not.toHaveReceivedAnyCommand();
    expect(logs).toEqual([
      `handoff: agentcore memory: rule rule_01 not mirrored: MirrorSetupError: memory ${MEMORY_ID} is FAILED`,
    ]);
  });

  it('stops polling a memory that never becomes ACTIVE (bounded backoff)', async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('CREATING') });
    const { mirror, logs, sleeps } = harness({ memoryId: MEMORY_ID });

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([]);

    expect(sleeps.length).toBeGreaterThan(3);
    expect(sleeps.length).toBeLessThan(30);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(6 * 60_000);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(15_000);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/not ACTIVE/);
    expect(data).not.toHaveReceivedAnyCommand();
  });
});

describe('ruleLearned', () => {
  beforeEach(() => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
  });

  it('writes one preference record and one fact record in one BatchCreateMemoryRecords call', async () => {
    createdOk();
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    const ids = await mirror.ruleLearned(rule());

    expect(ids).toEqual([RECORD_1, RECORD_2]);
    expect(logs).toEqual([]);
    expect(data).toHaveReceivedCommandTimes(BatchCreateMemoryRecordsCommand, 1);
    const [pref, fact] = sentRecords();
    expect(sentRecords()).toHaveLength(2);
    expect(pref).toEqual({
      requestIdentifier: 'rule_01-pref',
      memoryStrategyId: PREF_ID,
      namespaces: ['/handoff/ana/preferences/inbox/domain-vendor-com'],
      content: {
        text: 'For workflow inbox: mail from anyone at vendor.com → archive (learned from decision dec_42; note: "their newsletters never need me")',
      },
      timestamp: new Date('2026-02-03T04:05:06.000Z'),
    });
    expect(fact).toMatchObject({
      requestIdentifier: 'rule_01-fact',
      memoryStrategyId: FACT_ID,
      namespaces: ['/handoff/ana/facts/inbox/domain-vendor-com'],
      timestamp: new Date('2026-02-03T04:05:06.000Z'),
    });
    expect(fact!.content!.text).toContain('mail from anyone at vendor.com');
    expect(fact!.content!.text).toContain('"archive"');
    expect(fact!.content!.text).toContain('rule_01');
    for (const record of [pref!, fact!]) {
      expect(record.requestIdentifier).toMatch(AWS_REQUEST_ID);
      expect(record.requestIdentifier!.length).toBeLessThanOrEqual(80);
      expect(record.namespaces).toHaveLength(1);
      expect(record.namespaces![0]).toMatch(AWS_NAMESPACE);
    }
  });

  it('encodes a sender address readably (no @ or .) and scopes by workflow', async () => {
    createdOk();
    const { mirror } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleLearned(
      rule({ match: { sender: 'Ana@Vendor.com' }, action: 'reply_later', note: null }),
    );

    const [pref, fact] = sentRecords();
    expect(pref!.namespaces).toEqual(['/handoff/ana/preferences/inbox/sender-ana-at-vendor-com']);
    expect(fact!.namespaces).toEqual(['/handoff/ana/facts/inbox/sender-ana-at-vendor-com']);
    expect(pref!.content!.text).toBe(
      'For workflow inbox: mail from ana@vendor.com → reply_later (learned from decision dec_42)',
    );
    expect(fact!.content!.text).toContain('mail from ana@vendor.com gets the action "reply_later"');
  });

  it("keywords are sorted and a rule for every workflow is scoped 'all'", async () => {
    createdOk();
    const { mirror } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleLearned(
      rule({ workflow_id: null, match: { keywords: ['Overdue', 'invoice'] }, decision_id: null }),
    );

    const [pref, fact] = sentRecords();
    expect(pref!.namespaces).toEqual(['/handoff/ana/preferences/all/keywords-invoice-overdue']);
    expect(fact!.namespaces).toEqual(['/handoff/ana/facts/all/keywords-invoice-overdue']);
    expect(pref!.content!.text).toBe(
      'For every workflow: mail mentioning "invoice" and "overdue" → archive (learned from your answers; note: "their newsletters never need me")',
    );
  });

  it('rules you set yourself are not mirrored: nothing is sent', async () => {
    const { mirror, logs } = harness();

    await expect(mirror.ruleLearned(rule({ source: 'you' }))).resolves.toEqual([]);

    expect(data).not.toHaveReceivedAnyCommand();
    expect(control).not.toHaveReceivedAnyCommand();
    expect(logs).toEqual([]);
  });

  it('returns the ids that were written and logs one line for records that failed', async () => {
    data.on(BatchCreateMemoryRecordsCommand).resolves({
      successfulRecords: [
        { memoryRecordId: RECORD_2, status: 'SUCCEEDED', requestIdentifier: 'rule_01-fact' },
      ],
      failedRecords: [
        {
          memoryRecordId: undefined,
          status: 'FAILED',
          requestIdentifier: 'rule_01-pref',
          errorCode: 400,
          errorMessage: 'bad namespace /handoff/ana/preferences/inbox/domain-vendor-com',
        },
      ],
    });
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([RECORD_2]);

    expect(logs).toEqual([
      'handoff: agentcore memory: rule rule_01: 1 of 2 records not written (rule_01-pref: 400)',
    ]);
  });

  it('an AWS error is swallowed: one log line with the rule id only, no throw, []', async () => {
    data.on(BatchCreateMemoryRecordsCommand).rejects(
      new AccessDeniedException({
        message: 'User is not authorized; request echoed vendor.com',
        $metadata: { httpStatusCode: 403, requestId: 'req-1' },
      }),
    );
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([]);

    expect(logs).toEqual([
      'handoff: agentcore memory: rule rule_01 not mirrored: AccessDeniedException HTTP 403 request req-1',
    ]);
    expect(logs.join('\n')).not.toMatch(/vendor|newsletter|archive/);
  });

  it('a failed lookup is not cached: the next rule tries again', async () => {
    control.reset();
    control
      .on(ListMemoriesCommand)
      .rejectsOnce(new Error('socket hang up'))
      .resolves({
        memories: [{ id: MEMORY_ID, status: 'ACTIVE', createdAt: undefined, updatedAt: undefined }],
      });
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
    createdOk();
    const { mirror, logs } = harness();

    await expect(mirror.ruleLearned(rule())).resolves.toEqual([]);
    await expect(mirror.ruleLearned(rule({ id: 'rule_02' }))).resolves.toEqual([RECORD_1, RECORD_2]);

    expect(logs).toEqual(['handoff: agentcore memory: rule rule_01 not mirrored: Error: socket hang up']);
    expect(control).toHaveReceivedCommandTimes(ListMemoriesCommand, 2);
  });
});

describe('ruleRetired', () => {
  beforeEach(() => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE') });
  });

  it('deletes the mirrored records by id', async () => {
    data.on(BatchDeleteMemoryRecordsCommand).resolves({
      successfulRecords: [
        { memoryRecordId: RECORD_1, status: 'SUCCEEDED' },
        { memoryRecordId: RECORD_2, status: 'SUCCEEDED' },
      ],
      failedRecords: [],
    });
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleRetired(rule(), [RECORD_1, RECORD_2]);

    expect(data).toHaveReceivedCommandTimes(BatchDeleteMemoryRecordsCommand, 1);
    expect(data).toHaveReceivedCommandWith(BatchDeleteMemoryRecordsCommand, {
      memoryId: MEMORY_ID,
      records: [{ memoryRecordId: RECORD_1 }, { memoryRecordId: RECORD_2 }],
    });
    expect(logs).toEqual([]);
  });

  it('sends nothing when there are no ids', async () => {
    const { mirror } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleRetired(rule(), []);

    expect(data).not.toHaveReceivedAnyCommand();
    expect(control).not.toHaveReceivedAnyCommand();
  });

  it('an AWS error is swallowed with one log line', async () => {
    data
      .on(BatchDeleteMemoryRecordsCommand)
      .rejects(new AccessDeniedException({ message: 'no', $metadata: { httpStatusCode: 403 } }));
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await expect(mirror.ruleRetired(rule(), [RECORD_1])).resolves.toBeUndefined();

    expect(logs).toEqual([
      'handoff: agentcore memory: rule rule_01 not retired: AccessDeniedException HTTP 403',
    ]);
  });

  it('records that could not be deleted are logged in one line', async () => {
    data.on(BatchDeleteMemoryRecordsCommand).resolves({
      successfulRecords: [],
      failedRecords: [{ memoryRecordId: RECORD_1, status: 'FAILED', errorCode: 404 }],
    });
    const { mirror, logs } = harness({ memoryId: MEMORY_ID });

    await mirror.ruleRetired(rule(), [RECORD_1]);

    expect(logs).toEqual([
      `handoff: agentcore memory: rule rule_01: 1 of 1 records not deleted (${RECORD_1}: 404)`,
    ]);
  });
});

describe('keys, namespaces and request identifiers', () => {
  const strategies = { preferenceStrategyId: PREF_ID, semanticStrategyId: FACT_ID };

  it('preference keys are sender:/domain:/keywords:, scoped by workflow', () => {
    expect(preferenceKey(rule({ match: { sender: ' Ana@Vendor.com ' } }))).toBe(
      'inbox/sender:ana@vendor.com',
    );
    expect(preferenceKey(rule({ match: { domain: '@Vendor.COM' } }))).toBe('inbox/domain:vendor.com');
    expect(preferenceKey(rule({ workflow_id: null, match: { keywords: ['b', 'a', 'B'] } }))).toBe(
      'all/keywords:a,b',
    );
    expect(encodedPreferenceKey(rule({ match: { sender: 'ana@vendor.com' } }))).toBe(
      'inbox/sender-ana-at-vendor-com',
    );
  });

  it('every namespace satisfies the AgentCore pattern and length, however odd the rule', () => {
    const odd: Partial<Rule>[] = [
      { match: { sender: 'o.brien+news@mail.example.co.uk' } },
      { match: { sender: '"weird name"@[192.168.0.1]' } },
      { match: { domain: 'xn--bcher-kva.example' } },
      { match: { keywords: ['über', 'naïve café', '---', ':::'] } },
      { match: { keywords: ['日本語', '中文'] } },
      { match: { keywords: ['x'.repeat(3000), 'y'] } },
      { workflow_id: 'team/inbox:main', match: { domain: 'a.b' } },
      { workflow_id: '', match: { domain: '..' } },
    ];
    for (const over of odd) {
      for (const actor of ['ana', 'ana@example.com', 'user:42', '']) {
        for (const record of memoryRecordsFor(rule(over), strategies, actor)) {
          const ns = record.namespaces![0]!;
          expect(ns).toMatch(AWS_NAMESPACE);
          expect(ns.length).toBeLessThanOrEqual(1024);
          expect(ns).not.toMatch(/[@.]/);
        }
      }
    }
  });

  it('long values keep a readable head and stay distinct', () => {
    const a = namespaceSegment(`keywords:${'a'.repeat(500)},b`);
    const b = namespaceSegment(`keywords:${'a'.repeat(500)},c`);
    expect(a.length).toBeLessThanOrEqual(200);
    expect(a.startsWith('keywords-aaaa')).toBe(true);
    expect(a).not.toBe(b);
  });

  it('request identifiers come from the rule id and stay within [a-zA-Z0-9_-]{1,80}', () => {
    expect(requestIdentifier('rule_01', 'pref')).toBe('rule_01-pref');
    const ids = [
      requestIdentifier('rule:01/ü', 'fact'),
      requestIdentifier('r'.repeat(200), 'pref'),
      requestIdentifier('r'.repeat(200), 'fact'),
      requestIdentifier(`${'r'.repeat(199)}s`, 'pref'),
      requestIdentifier('', 'pref'),
    ];
    for (const id of ids) {
      expect(id).toMatch(AWS_REQUEST_ID);
      expect(id.length).toBeLessThanOrEqual(80);
    }
    expect(ids[1]).not.toBe(ids[2]);
    expect(ids[1]).not.toBe(ids[3]);
  });
});

describe('mirrorFromEnv', () => {
  it('is noMirror unless USE_AGENTCORE_MEMORY', () => {
    expect(mirrorFromEnv({ AWS_REGION: 'us-east-1' })).toBe(noMirror);
    expect(mirrorFromEnv({ AWS_REGION: 'us-east-1', USE_AGENTCORE_MEMORY: false })).toBe(noMirror);
  });

  it('builds an AgentCore mirror when enabled', async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE', 'env_memory-0123456789') });
    createdOk();
    const mirror = mirrorFromEnv({
      AWS_REGION: 'eu-west-1',
      USE_AGENTCORE_MEMORY: true,
      AGENTCORE_MEMORY_ID: 'env_memory-0123456789',
    });
    expect(mirror).toBeInstanceOf(AgentCoreMemoryMirror);

    await mirror.ruleLearned(rule());

    expect(control).not.toHaveReceivedCommand(ListMemoriesCommand);
    expect(data).toHaveReceivedCommandWith(BatchCreateMemoryRecordsCommand, {
      memoryId: 'env_memory-0123456789',
    });
    expect(sentRecords()[0]!.namespaces![0]).toBe(
      '/handoff/default-user/preferences/inbox/domain-vendor-com',
    );
  });

  it("mirrors another workspace's rules under an actor of its own (default keeps the configured one)", async () => {
    control.on(GetMemoryCommand).resolves({ memory: memory('ACTIVE', 'env_memory-0123456789') });
    createdOk();
    const env = {
      AWS_REGION: 'eu-west-1',
      USE_AGENTCORE_MEMORY: true,
      AGENTCORE_MEMORY_ID: 'env_memory-0123456789',
      AGENTCORE_ACTOR_ID: 'ana',
    };
    await mirrorFromEnv(env, 'team-b').ruleLearned(rule());
    await mirrorFromEnv(env, 'default').ruleLearned(rule());

    expect(sentRecords(0).map((r) => r.namespaces![0])).toEqual([
      '/handoff/ana_team-b/preferences/inbox/domain-vendor-com',
      '/handoff/ana_team-b/facts/inbox/domain-vendor-com',
    ]);
    expect(sentRecords(1)[0]!.namespaces![0]).toBe('/handoff/ana/preferences/inbox/domain-vendor-com');
  });
});
