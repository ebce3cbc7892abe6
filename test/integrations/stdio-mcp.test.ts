/**
 * Real MCP servers from npm over stdio (spawned with this Node): their tools are
 * listed, read-only ones reach the model, and world-changing ones only happen
 * through the gate — deferred when unsure, carried out after approval.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent, BeforeToolCallEvent, McpClient } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { addEntry, setTemplate } from '../../shared/integrations/registry.ts';
import {
  gateWorldChangingTools,
  integrationTools,
  type IntegrationToolset,
} from '../../shared/integrations/toolset.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, bySubject, type ToolResults } from '../support/scripted-model.ts';
import { EVERYTHING_SERVER, MEMORY_SERVER } from './support/npm-servers.ts';
import { integrationScript } from './support/script.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture | undefined;
let toolset: IntegrationToolset | undefined;
afterEach(async () => {
  await toolset?.close();
  toolset = undefined;
  await fixture?.cleanup();
  fixture = undefined;
});

function credentialsOf(f: EngineFixture) {
  return f.deps.credentials;
}

/** Child processes of this process still running the given script. */
function childrenRunning(script: string): string[] {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(script));
}

async function memoryEntities(file: string): Promise<string[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; name: string })
    .filter((r) => r.type === 'entity')
    .map((r) => r.name);
}

describe('server-everything over stdio', () => {
  it('lists its tools, gives the model only the read-only ones, and calls one', async () => {
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: 'idle' })) });
    await addEntry(fixture.store, {
      name: 'everything',
      title: 'Everything',
      transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER(), 'stdio'] },
    });
    toolset = await integrationTools(fixture.store, credentialsOf(fixture), { servers: ['everything'] });

    expect(toolset.problems).toEqual([]);
    const modelTools = toolset.tools.map((t) => t.name);
    expect(modelTools).toEqual(expect.arrayContaining(['everything__echo', 'everything__get_sum']));
    expect(modelTools).not.toContain('everything__toggle_simulated_logging');
    expect(toolset.actions.get('everything__toggle_simulated_logging')).toMatchObject({ changesWorld: true });
    expect(toolset.isWorldChanging('everything__toggle_simulated_logging')).toBe(true);
    expect(toolset.isWorldChanging('everything__echo')).toBe(false);

    const echo = toolset.tools.find((t) => t.name === 'everything__echo')!;
    expect(await echo.invoke({ message: 'hello from handoff' })).toContain('hello from handoff');
  });

  it('hands the child its credential but nothing else of our environment, and redacts what it echoes', async () => {
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: 'idle' })) });
    const credentials = credentialsOf(fixture);
    const token = 'everything-token-5f2c9a1e7b';
    await credentials.set('EVERYTHING_TOKEN', new Secret(token));
    await addEntry(fixture.store, {
      name: 'everything',
      title: 'Everything',
      transport: {
        kind: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_SERVER(), 'stdio'],
        credential_env: { API_TOKEN: 'EVERYTHING_TOKEN' },
      },
    });
    process.env.HANDOFF_TEST_PRIVATE = 'not-for-children';
    try {
      toolset = await integrationTools(fixture.store, credentials, { servers: ['everything'] });
      const getEnv = toolset.tools.find((t) => t.name === 'everything__get_env')!;
      const printed = String(await getEnv.invoke({}));
      expect(printed).toContain('"API_TOKEN": "[redacted]"');
      expect(printed).not.toContain(token);
      expect(printed).not.toContain('not-for-children');
    } finally {
      delete process.env.HANDOFF_TEST_PRIVATE;
    }
  });
});

describe('server-memory over stdio, through the gate', () => {
  it('acts on a sure write, defers an unsure one until approved, and always asks before a destructive one', async () => {
    const seen: ToolResults = [];
    fixture = await engineFixture({
      messages: [
        mail({ from: 'ana@partner.example', subject: 'Intro from Ana' }),
        mail({ from: 'bo@maybe.example', subject: 'Maybe Bo' }),
        mail({ from: 'cy@old.example', subject: 'Forget Cy' }),
      ],
      model: () =>
        new ScriptedModel(
          integrationScript(
            [
              { name: 'memory__read_graph', input: {} },
              // Not offered to the model: a direct call does nothing.
              {
                name: 'memory__create_entities',
                input: { entities: [{ name: 'Mallory', entityType: 'x', observations: [] }] },
              },
              {
                name: 'create_entities',
                input: { entities: [{ name: 'Mallory', entityType: 'x', observations: [] }] },
              },
            ],
            bySubject({
              Ana: { action: 'memory__create_entities', confidence: 0.95, reasoning: 'a new contact' },
              Bo: {
                action: 'memory__create_entities',
                confidence: 0.4,
                reasoning: 'not sure this is a person',
              },
              Cy: { action: 'memory__delete_entities', confidence: 1, reasoning: 'asks to be forgotten' },
            }),
            seen,
          ),
        ),
    });
    const memoryFile = path.join(fixture.dir, 'memory.jsonl');
    await addEntry(fixture.store, {
      name: 'memory',
      title: 'Knowledge graph',
      transport: {
        kind: 'stdio',
        command: process.execPath,
        args: [MEMORY_SERVER()],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
    });
    await setTemplate(fixture.store, 'memory', 'create_entities', {
      entities: [{ name: '{{item.sender}}', entityType: 'contact', observations: ['{{item.subject}}'] }],
    });
    await setTemplate(fixture.store, 'memory', 'delete_entities', { entityNames: ['{{item.sender}}'] });
    await saveWorkflow(
      fixture.store,
      parseWorkflow(
        `id: people
name: People
instructions: Keep a graph of the people who write.
trigger: { manual: true }
source: { type: maildir, path: ${fixture.maildir} }
actions:
  - { name: memory__create_entities }
  - { name: memory__delete_entities }
human_gate: { options: [memory__create_entities, memory__delete_entities, skip] }
`,
        'people.yaml',
      ),
    );

    const run = await startRun(fixture.deps, 'people', manual);

    expect(run.status).toBe('waiting');
    expect(childrenRunning(MEMORY_SERVER())).toEqual([]); // the server ended with the run's step
    expect(await memoryEntities(memoryFile)).toEqual(['ana@partner.example']);
    expect(seen.find((r) => r.name === 'memory__read_graph')?.result).toMatchObject({ entities: [] });
    const pending = await listPending(fixture.store);
    expect(pending.map((d) => [d.subject, d.reason]).sort()).toEqual([
      ['Forget Cy', 'irreversible'],
      ['Maybe Bo', 'low_confidence'],
    ]);

    const bo = pending.find((d) => d.subject === 'Maybe Bo')!;
    const cy = pending.find((d) => d.subject === 'Forget Cy')!;
    await decide(fixture.deps, bo.id, 'approve_suggested', 'yes, a person');
    // Answers take effect as they arrive (issue 29): the approved write is done at once, and the
    // server it needed ended with it, while the run still waits for the other answer.
    expect(await memoryEntities(memoryFile)).toEqual(['ana@partner.example', 'bo@maybe.example']);
    expect(childrenRunning(MEMORY_SERVER())).toEqual([]);
    const last = await decide(fixture.deps, cy.id, 'skip', null);
    expect(last.run_status).toBe('completed');
    expect(childrenRunning(MEMORY_SERVER())).toEqual([]);

    expect(await memoryEntities(memoryFile)).toEqual(['ana@partner.example', 'bo@maybe.example']);
    const direct = seen.filter((r) => r.name.endsWith('create_entities'));
    expect(direct).toHaveLength(2);
    for (const r of direct) expect(r.result).toMatchObject({ status: 'error' });
    const audit = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.item_id);
    expect(audit.map((e) => [e.action, e.outcome, e.decided_by]).sort()).toEqual([
      ['memory__create_entities', 'acted', 'human'],
      ['memory__create_entities', 'acted', 'model'],
      ['skip', 'declined', 'human'],
    ]);
  });
});

describe('the hook that stops direct world-changing calls', () => {
  it('cancels a raw MCP tool that changes the world, and lets a read-only one run', async () => {
    fixture = await engineFixture({ messages: [], model: () => new ScriptedModel(() => ({ text: 'idle' })) });
    const memoryFile = path.join(fixture.dir, 'memory.jsonl');
    const transport = () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [MEMORY_SERVER()],
        env: { MEMORY_FILE_PATH: memoryFile },
        stderr: 'pipe',
      });
    await addEntry(fixture.store, {
      name: 'memory',
      title: 'Knowledge graph',
      transport: {
        kind: 'stdio',
        command: process.execPath,
        args: [MEMORY_SERVER()],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
    });
    toolset = await integrationTools(fixture.store, credentialsOf(fixture), { servers: ['memory'] });
    // Someone hands the agent the whole server, as Strands allows: the hook still stands in front of its writes.
    const raw = new McpClient({
      transport: transport(),
      disableMcpInstrumentation: true,
      logHandler: () => {},
    });
    const seen: ToolResults = [];
    const agent = new Agent({
      model: new ScriptedModel((results) => {
        seen.push(...results);
        if (results.length > 0) return { text: 'done' };
        return {
          toolCalls: [
            {
              name: 'create_entities',
              input: { entities: [{ name: 'Mallory', entityType: 'x', observations: [] }] },
            },
            { name: 'read_graph', input: {} },
          ],
        };
      }),
      tools: [raw],
      printer: false,
      toolExecutor: 'sequential',
    });
    agent.addHook(BeforeToolCallEvent, gateWorldChangingTools(toolset.isWorldChanging));
    try {
      await agent.invoke('go');
    } finally {
      await raw.disconnect();
    }

    expect(await memoryEntities(memoryFile)).toEqual([]);
    expect(seen.find((r) => r.name === 'create_entities')?.result).toMatchObject({
      text: expect.stringMatching(/never called directly; nothing was done/),
    });
    expect(seen.find((r) => r.name === 'read_graph')?.result).toMatchObject({ entities: [] });
  });
});
