import 'aws-sdk-client-mock-jest';
import {
  BatchCreateMemoryRecordsCommand,
  BatchDeleteMemoryRecordsCommand,
  BedrockAgentCoreClient,
} from '@aws-sdk/client-bedrock-agentcore';
import { BedrockAgentCoreControlClient } from '@aws-sdk/client-bedrock-agentcore-control';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, expect, it } from '@jest/globals';
import { AgentCoreMemoryMirror } from '../../shared/memory/agentcore-mirror.ts';
import { learnFromDecision } from '../../shared/runs/learn.ts';
import { listRules, revokeRule } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

const data = mockClient(BedrockAgentCoreClient);
let fixture: EngineFixture;
afterEach(() => {
  data.reset();
  return fixture?.cleanup();
});

function decision(id: string, sender: string, action: string, note: string | null): Decision {
  return {
    id,
    version: 2,
    run_id: 'run_1',
    interrupt_id: 'int_1',
    workflow_id: 'inbox',
    item_id: `<${id}@x>`,
    sender,
    subject: 'Statement',
    snippet: 'See attached.',
    suggested_action: 'archive',
    confidence: 0.4,
    reasoning: 'unsure',
    reason: 'low_confidence',
    options: ['archive', 'file_ticket', 'skip'],
    status: 'answered',
    answer: { action, note, by: 'human', at: new Date().toISOString() },
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  };
}

it('mirrors each learned rule to AgentCore Memory, and retires it there when superseded or revoked', async () => {
  fixture = await engineFixture({ messages: [], model: () => new OfflineModel() });
  data
    .on(BatchCreateMemoryRecordsCommand)
    .resolvesOnce({
      successfulRecords: [
        { memoryRecordId: 'mem-1', requestIdentifier: 'a', status: 'SUCCEEDED' },
        { memoryRecordId: 'mem-2', requestIdentifier: 'b', status: 'SUCCEEDED' },
      ],
      failedRecords: [],
    })
    .resolves({
      successfulRecords: [{ memoryRecordId: 'mem-3', requestIdentifier: 'c', status: 'SUCCEEDED' }],
      failedRecords: [],
    });
  data.on(BatchDeleteMemoryRecordsCommand).resolves({ successfulRecords: [], failedRecords: [] });
  fixture.deps.mirror = new AgentCoreMemoryMirror({
    data: new BedrockAgentCoreClient({ region: 'us-east-1' }),
    control: new BedrockAgentCoreControlClient({ region: 'us-east-1' }),
    memoryId: 'handoff_rules-AbCdE12345',
    actorId: 'me',
    log: () => {},
  });
  // The strategy ids come from the memory; with a given id the mirror asks GetMemory once.
  const control = mockClient(BedrockAgentCoreControlClient);
  const { GetMemoryCommand } = await import('@aws-sdk/client-bedrock-agentcore-control');
  control.on(GetMemoryCommand).resolves({
    memory: {
      id: 'handoff_rules-AbCdE12345',
      arn: 'arn',
      name: 'handoff_rules',
      status: 'ACTIVE',
      eventExpiryDuration: 90,
      createdAt: new Date(),
      updatedAt: new Date(),
      strategies: [
        {
          strategyId: 'pref-1',
          name: 'handoff_preferences',
          type: 'USER_PREFERENCE',
          namespaces: [],
          namespaceTemplates: [],
        },
        {
          strategyId: 'fact-1',
          name: 'handoff_semantic',
          type: 'SEMANTIC',
          namespaces: [],
          namespaceTemplates: [],
        },
      ],
    },
  });

  await learnFromDecision(
    fixture.deps,
    decision('dec_a', 'ana@vendor.example', 'archive', 'anything from this company can be archived'),
  );
  const [learned] = await listRules(fixture.store);
  expect(learned!.mirror_ids).toEqual(['mem-1', 'mem-2']);
  expect(data).toHaveReceivedCommandWith(BatchCreateMemoryRecordsCommand, {
    memoryId: 'handoff_rules-AbCdE12345',
  });
  const sent = data.commandCalls(BatchCreateMemoryRecordsCommand)[0]!.args[0].input.records!;
  expect(sent.map((r) => r.memoryStrategyId)).toEqual(['pref-1', 'fact-1']);
  expect(sent[0]!.content).toMatchObject({ text: expect.stringContaining('vendor.example') });

  // A contradicting answer supersedes it here and deletes its records there.
  await learnFromDecision(fixture.deps, decision('dec_b', 'bob@vendor.example', 'file_ticket', null));
  expect(data).toHaveReceivedCommandWith(BatchDeleteMemoryRecordsCommand, {
    records: [{ memoryRecordId: 'mem-1' }, { memoryRecordId: 'mem-2' }],
  });
  const newer = (await listRules(fixture.store)).find((r) => r.superseded_by === null)!;
  await revokeRule(fixture.store, fixture.deps.mirror, newer.id);
  expect(data).toHaveReceivedCommandTimes(BatchDeleteMemoryRecordsCommand, 2);
  expect(data.commandCalls(BatchDeleteMemoryRecordsCommand)[1]!.args[0].input.records).toEqual([
    { memoryRecordId: 'mem-3' },
  ]);
  control.restore();
});
