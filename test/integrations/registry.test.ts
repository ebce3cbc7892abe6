import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { argumentsFor, fillTemplate, type IntegrationAction } from '../../shared/integrations/actions.ts';
import {
  addEntry,
  getEntry,
  listEntries,
  removeEntry,
  setDisabled,
  setTemplate,
  statusOf,
} from '../../shared/integrations/registry.ts';
import { BUILTIN_ENTRIES, SLACK_API } from '../../shared/integrations/servers.ts';
import {
  changesWorld,
  isIrreversible,
  qualifiedName,
  type IntegrationTool,
} from '../../shared/integrations/tool.ts';
import type { SourceItem } from '../../shared/sources/source.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

let dir: string;
let store: JsonFileStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-registry-'));
  store = new JsonFileStore(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const NO_AWS = { PATH: '/nonexistent' };

async function statuses(have: string[] = [], env: NodeJS.ProcessEnv = NO_AWS) {
  return Object.fromEntries(
    (await listEntries(store)).map((r) => [r.entry.name, statusOf(r, new Set(have), env)]),
  );
}

describe('the registry', () => {
  it('has the built-in services as entries, each saying what it still needs', async () => {
    expect(await statuses()).toEqual({
      gmail: 'needs credential GMAIL_CLIENT_ID',
      linear: 'needs credential LINEAR_API_KEY',
      github: 'needs credential GITHUB_TOKEN',
      fetch: 'error: command "uvx" not found on PATH',
      agentcore_browser: 'needs AWS',
      agentcore_code_interpreter: 'needs AWS',
      slack: 'needs credential SLACK_BOT_TOKEN',
    });
    const fetchEntry = BUILTIN_ENTRIES.find((e) => e.name === 'fetch')!;
    expect(fetchEntry.credential_free).toBe(true);
    expect(BUILTIN_ENTRIES.find((e) => e.name === 'slack')?.transport).toMatchObject({ base_url: SLACK_API });
  });

  it('calls an entry ready once its credentials are set and its command is found', async () => {
    const bin = path.join(dir, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'uvx'), '#!/bin/sh\n', { mode: 0o755 });
    const s = await statuses(['LINEAR_API_KEY', 'GMAIL_CLIENT_ID', 'GMAIL_CLIENT_SECRET'], { PATH: bin });
    expect(s).toMatchObject({
      linear: 'ready',
      fetch: 'ready',
      gmail: 'needs credential GMAIL_REFRESH_TOKEN',
    });
  });

  it('calls the AgentCore Code Interpreter and Browser ready once AWS credentials are there', async () => {
    const s = await statuses([], { AWS_PROFILE: 'dev' });
    expect(s.agentcore_code_interpreter).toBe('ready');
    expect(s.agentcore_browser).toBe('ready');
  });

  it('adds, disables, enables and removes a user entry', async () => {
    await addEntry(store, {
      name: 'tickets',
      title: 'Tickets',
      transport: { kind: 'http', url: 'http://127.0.0.1:9/mcp', bearer: 'TICKETS_TOKEN' },
      writes: ['create_*'],
    });
    const added = await getEntry(store, 'tickets');
    expect(added).toMatchObject({ source: 'user', disabled: false });
    expect(statusOf(added, new Set(), NO_AWS)).toBe('needs credential TICKETS_TOKEN');
    expect(statusOf(await setDisabled(store, 'tickets', true), new Set(['TICKETS_TOKEN']), NO_AWS)).toBe(
      'disabled',
    );
    expect(statusOf(await setDisabled(store, 'tickets', false), new Set(['TICKETS_TOKEN']), NO_AWS)).toBe(
      'ready',
    );
    await removeEntry(store, 'tickets');
    await expect(getEntry(store, 'tickets')).rejects.toThrow(/no integration named tickets/);
  });

  it('lets a person disable a built-in or give it templates, but not remove it', async () => {
    await setDisabled(store, 'github', true);
    await setTemplate(store, 'linear', 'create_issue', { title: '{{item.subject}}', team: 'ENG' });
    expect(await getEntry(store, 'github')).toMatchObject({ source: 'builtin', disabled: true });
    expect((await getEntry(store, 'linear')).entry.templates).toEqual({
      create_issue: { title: '{{item.subject}}', team: 'ENG' },
    });
    await expect(removeEntry(store, 'github')).rejects.toThrow(/built in; disable it instead/);
  });

  it('refuses an entry it could not use, saying which field is wrong', async () => {
    await expect(
      addEntry(store, {
        name: 'Bad__Name',
        title: 'x',
        transport: { kind: 'http', url: 'http://127.0.0.1/' },
      }),
    ).rejects.toThrow(/integration name: must be snake_case/);
    await expect(
      addEntry(store, { name: 'ok', title: 'x', transport: { kind: 'http', url: 'not a url' } }),
    ).rejects.toThrow(/transport.url/);
  });
});

function tool(name: string, hints: IntegrationTool['hints']): IntegrationTool {
  return {
    server: 'svc',
    tool: name,
    name: qualifiedName('svc', name),
    description: '',
    inputSchema: {},
    hints,
    invoke: async () => ({ text: '', isError: false }),
  };
}

describe('which tools change the world', () => {
  const entry = {
    ...BUILTIN_ENTRIES.find((e) => e.name === 'linear')!,
    reads: ['list_*'],
    irreversible: ['archive'],
  };

  it('treats any tool not annotated readOnlyHint: true as changing the world', () => {
    expect(changesWorld(entry, tool('get_issue', { readOnlyHint: true }))).toBe(false);
    expect(changesWorld(entry, tool('get-status', {}))).toBe(true);
    expect(changesWorld(entry, tool('search', { readOnlyHint: false }))).toBe(true);
  });

  it('lets the entry overrule the server: writes always write, reads are trusted', () => {
    expect(changesWorld(entry, tool('create_issue', { readOnlyHint: true }))).toBe(true);
    expect(changesWorld(entry, tool('list_teams', {}))).toBe(false);
  });

  it('asks always before destructive or listed tools, by the MCP default when unannotated', () => {
    expect(isIrreversible(entry, tool('update_issue', { destructiveHint: false }))).toBe(false);
    expect(isIrreversible(entry, tool('update_issue', {}))).toBe(true);
    expect(isIrreversible(entry, tool('archive', { destructiveHint: false }))).toBe(true);
    expect(isIrreversible(entry, tool('get_issue', { readOnlyHint: true }))).toBe(false);
  });

  it('names tools <entry>__<tool> in the characters models accept', () => {
    expect(qualifiedName('everything', 'get-sum')).toBe('everything__get_sum');
    expect(qualifiedName('x', 'Weird Name!')).toBe('x__weird_name');
  });
});

describe('the arguments of an integration action', () => {
  const item: SourceItem = {
    id: 'm1',
    ref: 'r',
    sender: { address: 'ana@partner.example', name: 'Ana' },
    to: ['me@x.example'],
    subject: 'Crash on save',
    text: 'It crashes.',
    date: null,
    hints: [],
  };
  const context = {
    store: null as never,
    workflowId: 'wf',
    runId: 'run1',
    note: 'urgent',
    reasoning: 'a bug',
  };
  const action = (over: Partial<IntegrationAction>): IntegrationAction => ({
    name: 'svc__create',
    server: 'svc',
    tool: 'create',
    changesWorld: true,
    irreversible: false,
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        description: { type: 'string' },
        priority: { type: 'number' },
      },
      required: ['title'],
    },
    template: undefined,
    call: async () => ({ text: '', isError: false }),
    ...over,
  });

  it('fills a template from the item, through nested objects and arrays', () => {
    expect(
      fillTemplate(
        { a: ['{{item.subject}} by {{item.sender}}', { n: '{{note}}' }], k: 3 },
        {
          'item.subject': 'S',
          'item.sender': 'x@y',
          note: 'N',
        },
      ),
    ).toEqual({ a: ['S by x@y', { n: 'N' }], k: 3 });
    expect(() => fillTemplate('{{item.secret}}', {})).toThrow(/not a known value/);
  });

  it("fills an event item's fields, a lone placeholder keeping the value's type (a PR number stays a number)", () => {
    const pr: SourceItem = {
      ...item,
      id: 'octo/app#42@0123abc',
      fields: { owner: 'octo', repo: 'app', number: 42, head_sha: '0123abc' },
    };
    const review = action({
      template: {
        owner: '{{item.owner}}',
        repo: '{{item.repo}}',
        pullNumber: '{{item.number}}',
        commitID: '{{ item.head_sha }}',
        body: 'PR #{{item.number}}: {{note}}',
      },
    });
    expect(argumentsFor(review, pr, context)).toEqual({
      owner: 'octo',
      repo: 'app',
      pullNumber: 42,
      commitID: '0123abc',
      body: 'PR #42: urgent',
    });
    expect(() => argumentsFor(review, item, context)).toThrow(
      /\{\{item.owner\}\}, which is not a known value/,
    );
  });

  it('without a template, fills the string properties that name a part of the item', () => {
    expect(argumentsFor(action({}), item, context)).toEqual({
      title: 'Crash on save',
      description: 'It crashes.',
    });
  });

  it('refuses to guess a required argument the item does not give', () => {
    const needsTeam = action({
      inputSchema: { properties: { title: {}, team: { type: 'string' } }, required: ['team'] },
    });
    expect(() => argumentsFor(needsTeam, item, context)).toThrow(
      /needs team.*integrations template svc create/,
    );
    expect(
      argumentsFor({ ...needsTeam, template: { team: 'ENG', title: '{{item.subject}}' } }, item, context),
    ).toEqual({
      team: 'ENG',
      title: 'Crash on save',
    });
  });
});
