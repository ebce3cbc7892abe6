import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChatSchema } from '../../shared/chats/chat-records.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { WorkflowSchema } from '../../shared/workflows/schema.ts';
import { BUILTIN_ENTRIES } from '../../shared/integrations/servers.ts';
import { runCli } from '../support/cli.ts';
import { hashTree } from '../support/hash-tree.ts';
import descriptions from './fixtures/descriptions.json' with { type: 'json' };
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { childEnv } from '../support/child-env.ts';

interface Case {
  description: string;
  expect: 'workflow' | 'question';
  schedule?: string;
  source?: string;
  host?: string;
  threshold?: number;
  actions?: string[];
  mentions?: string;
  irreversible?: string;
}
interface Reply {
  chat_id: string;
  text: string;
  workflow_id?: string;
  run_id?: string;
  confirm?: { id: string; tool: string; summary: string };
}

const ALLOWED = ['chat_id', 'confirm', 'run_id', 'text', 'workflow_id'];
let dir: string;
let env: Record<string, string>;
let maildir: string;

async function chat(args: string[]): Promise<Reply> {
  const result = await runCli(['chat', ...args, '--json'], env);
  if (result.code !== 0) throw new Error(`handoff chat exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Reply;
}

/** The stored workflows and the chat's draft, read the way the product reads them. */
async function stored(chatId: string) {
  const store = new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default'));
  const workflows = (await store.list('workflows')).map((w) => w.id).sort();
  const chat = ChatSchema.parse(await store.get('chats', chatId));
  return { workflows, draft: chat.draft };
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-chat-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  maildir = path.join(dir, 'Maildir');
  await createDemoMaildir(maildir);
  await fs.writeFile(path.join(dir, 'demo.yaml'), demoWorkflowYaml(maildir));
  expect((await runCli(['workflows', 'add', path.join(dir, 'demo.yaml')], env)).code).toBe(0);
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('handoff chat --message --json: a description in words', () => {
  const cases = descriptions as Case[];

  it('keeps at least 12 varied descriptions in its fixture', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  const replies = new Map<string, Reply>();
  let before: Record<string, string>;
  beforeAll(async () => {
    before = await hashTree(maildir);
    // Three processes at a time: each is a newcomer's `handoff chat` in its own chat.
    const queue = [...cases];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift())
        replies.set(c.description, await chat(['--message', c.description]));
    };
    await Promise.all([worker(), worker(), worker()]);
  });

  it.each(cases.map((c) => [c.description, c] as const))(
    '"%s" yields a valid workflow waiting for a yes, or one clarifying question; nothing is saved',
    async (_, c) => {
      const reply = replies.get(c.description)!;
      expect(Object.keys(reply).every((k) => ALLOWED.includes(k))).toBe(true);
      expect(reply.workflow_id).toBeUndefined();
      expect(reply.run_id).toBeUndefined();
      const { workflows, draft } = await stored(reply.chat_id);
      expect(workflows).toEqual(['inbox-triage']); // never a save without confirmation
      expect(await hashTree(maildir)).toEqual(before); // the preview read, and touched nothing

      if (c.expect === 'question') {
        expect(reply.confirm).toBeUndefined();
        expect(draft).toBeNull();
        expect(reply.text.trim().endsWith('?')).toBe(true);
        expect(reply.text.match(/\?/g)).toHaveLength(1);
        return;
      }
      expect(reply.confirm?.tool).toBe('save_workflow');
      const workflow = WorkflowSchema.parse(draft);
      expect(() => parseWorkflow(JSON.stringify(draft), 'draft.json')).not.toThrow();
      expect(reply.confirm?.summary).toContain(workflow.id);
      if (c.schedule) expect(workflow.trigger).toEqual({ schedule: c.schedule });
      if (c.source) expect(workflow.source.type).toBe(c.source);
      if (c.source === 'maildir' && !c.description.includes('/'))
        expect(workflow.source).toEqual({ type: 'maildir', path: maildir });
      if (c.host) expect(workflow.source).toMatchObject({ host: c.host });
      if (c.threshold) expect(workflow.confidence_threshold).toBe(c.threshold);
      if (c.actions) expect(workflow.actions.map((a) => a.name)).toEqual(c.actions);
      if (c.irreversible)
        expect(workflow.actions.find((a) => a.name === c.irreversible)?.irreversible).toBe(true);
      if (c.mentions)
        expect(reply.text).toContain(`${c.mentions.toLowerCase()} is not in the integration registry`);
      // Never an integration that is not in the registry.
      const registry = new Set(BUILTIN_ENTRIES.map((e) => e.name));
      for (const action of workflow.actions)
        if (action.name.includes('__')) expect(registry.has(action.name.split('__')[0]!)).toBe(true);
    },
  );

  it('saves only on the yes, in the same chat, and then runs it on the next yes', async () => {
    const asked = await chat(['--message', 'every weekday at 8, go through my inbox, archive newsletters']);
    expect(asked.confirm?.tool).toBe('save_workflow');
    const saved = await chat(['--chat', asked.chat_id, '--message', 'yes']);
    expect(saved.workflow_id).toMatch(/^inbox-triage-\d+$/);
    expect(saved.confirm).toBeUndefined();
    expect((await stored(asked.chat_id)).workflows).toContain(saved.workflow_id);

    const run = await chat(['--chat', asked.chat_id, '--message', 'run it now']);
    expect(run.confirm?.tool).toBe('start_run');
    expect(run.run_id).toBeUndefined();
    const started = await chat(['--chat', asked.chat_id, '--message', 'run it']);
    expect(started.run_id).toMatch(/^run_/);
    expect(started.text).toMatch(/waiting|completed/);

    const listed = await runCli(['chats', '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ chat_id: asked.chat_id, turns: 8 })]),
    );
  });

  it('talks interactively: each line a turn, its steps shown as they happen, the chat kept', async () => {
    const child = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, '../../bin/handoff.js'), 'chat'],
      {
        env: childEnv(env),
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const before = await new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default')).list('workflows');
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.end('hello\narchive newsletters in my inbox every day at 9\nno\n\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/I can build a workflow from a description/);
    expect(out).toMatch(/· assistant → builder\n {2}· list_sources/);
    expect(out).toMatch(/\[waiting for your yes: Save workflow .*\]/);
    expect(out).toMatch(/Cancelled: save workflow .* was not done\. Nothing changed\./);
    const chatId = /Chat (chat_\w+) is saved: handoff chat --chat chat_\w+/.exec(out)?.[1];
    expect((await stored(chatId!)).workflows).toEqual(before.map((w) => w.id).sort());
  });

  it('in the terminal the card shows the whole workflow, and yes, no and edit are replies', async () => {
    const child = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, '../../bin/handoff.js'), 'chat'],
      { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.end(
      [
        'archive newsletters in my inbox every day at 8',
        'make it 9am instead of 8',
        // edit: the fields as lines; a bad edit lists every problem and changes nothing.
        'edit',
        'schedule: whenever',
        'threshold: 2',
        'colour: red',
        '',
        'edit',
        'schedule: every weekday at 7',
        'threshold: 90%',
        'instructions: Archive newsletters.',
        '  Ask me about anything from a person.',
        '',
        'no',
        '',
      ].join('\n') + '\n',
    );
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(out).toMatch(/ {2}Source: the Maildir folder \/.* on this machine\n/);
    expect(out).toContain('  Schedule: every day at 08:00 (UTC)\n');
    expect(out).toContain('Changed schedule: every day at 08:00 (UTC) → every day at 09:00 (UTC).');
    expect(out).toContain('  Schedule: every day at 09:00 (UTC)\n');
    expect(out).toMatch(/ {2}Credentials: none\n {2}Preview: \d+ of \d+ items?\b/);
    expect(out).toContain('yes: do it · no: drop it · edit: change its fields');
    // The draft's fields shown to change, then every problem of the bad edit, one a line.
    expect(out).toContain('  schedule: cron(0 9 * * ? *)\n');
    expect(out).toMatch(/ {2}actions: archive\n {2}options: archive, skip\n/);
    expect(out).toContain(
      [
        'Nothing changed; 3 problems:',
        '  - line 3: "colour" is not a field you can edit here (fields are name, schedule, source, instructions, actions, options, threshold)',
        '  - schedule: "whenever" is not a schedule: write words like "every weekday at 9", cron(0 9 ? * MON-FRI *), rate(1 hour), manual or webhook',
        '  - threshold: must be between 0 and 1 (got 2)',
      ].join('\n'),
    );
    // The good edit: what changed, and the card shown back waiting for the yes.
    expect(out).toContain('Changed schedule: every day at 09:00 (UTC) → every weekday at 07:00 (UTC)');
    expect(out).toMatch(/threshold: .*\(0\.7\) → .*\(0\.9\)/);
    expect(out).toContain('  Instructions: Archive newsletters. Ask me about anything from a person.\n');
    expect(out).toContain('  Schedule: every weekday at 07:00 (UTC)\n');
    expect(out).toMatch(/Cancelled: save workflow .* was not done\. Nothing changed\. The draft is kept/);
  });

  it('`--edit` changes the draft by field: value lines, every problem in one line and nothing changed, then yes saves it', async () => {
    const drafted = await chat(['--message', 'archive newsletters in my inbox every day at 8']);
    const bad = await runCli(
      [
        'chat',
        '--chat',
        drafted.chat_id,
        '--edit',
        'schedule: whenever\nthreshold: lots\nactions: archive, explode',
      ],
      env,
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(
      /^handoff: the draft was not changed: 3 problems: schedule: "whenever" is not a schedule.*; threshold: "lots" is not a threshold.*; actions: the maildir source cannot "explode"/,
    );
    const draft = (await stored(drafted.chat_id)).draft as { trigger: { schedule: string } };
    expect(draft.trigger.schedule).toBe('cron(0 8 * * ? *)');

    const edited = await chat([
      '--chat',
      drafted.chat_id,
      '--edit',
      'schedule: every weekday at 9\nname: Newsletters',
    ]);
    expect(edited.text).toBe(
      'Changed name: Inbox triage: newsletters → Newsletters; schedule: every day at 08:00 (UTC) → every weekday at 09:00 (UTC). Save it? Say yes, no, or what to change.',
    );
    expect(edited.confirm?.tool).toBe('save_workflow');
    const saved = await chat(['--chat', drafted.chat_id, '--message', 'yes']);
    const workflow = WorkflowSchema.parse(
      await new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default')).get(
        'workflows',
        saved.workflow_id!,
      ),
    );
    expect(workflow).toMatchObject({ name: 'Newsletters', trigger: { schedule: 'cron(0 9 ? * MON-FRI *)' } });
  });

  it('refuses bad input with one line and a non-zero exit, changing nothing', async () => {
    const store = new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default'));
    const snapshot = async () => ({
      chats: await store.list('chats'),
      workflows: await store.list('workflows'),
    });
    const unchanged = await snapshot();
    for (const [args, pattern] of [
      [['--message', '   '], /message is empty/],
      [['--message', 'x'.repeat(100_000)], /100000 characters; the most is 8000/],
      [['--chat', 'chat_doesnotexist', '--message', 'hi'], /no chat "chat_doesnotexist"/],
    ] as const) {
      const result = await runCli(['chat', ...args, '--json'], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(pattern);
    }
    expect(await snapshot()).toEqual(unchanged);
  });
});
