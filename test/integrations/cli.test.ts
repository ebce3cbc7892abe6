/** `handoff integrations ...` and `handoff credentials ...`, run in this process. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { registerIntegrationCommands, splitCommand } from '../../shared/cli/commands/integrations.ts';
import { getEntry } from '../../shared/integrations/registry.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';

const VALUE = 'lin_api_cli_4b8e2f9a0c1d';
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-cli-'));
  process.env.HANDOFF_STATE_DIR = dir; // read once, by the first command
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function handoff(args: string[], stdin = ''): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk) => ((err += String(chunk)), true));
  const log = jest
    .spyOn(console, 'log')
    .mockImplementation((...a: unknown[]) => void (out += `${a.join(' ')}\n`));
  try {
    const program = new Command('handoff').exitOverride().enablePositionalOptions();
    registerIntegrationCommands(program, { stdin: Readable.from([stdin]) });
    await program.parseAsync(['node', 'handoff', ...args]);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    log.mockRestore();
  }
  return { out, err };
}

async function stateText(): Promise<string> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => fs.readFile(f, 'utf8')))).join('\n');
}

describe('handoff credentials', () => {
  it('sets a credential from stdin and shows only its name', async () => {
    const { out } = await handoff(['credentials', 'set', 'LINEAR_API_KEY'], `${VALUE}\n`);
    expect(out).toBe('Set LINEAR_API_KEY (sealed with aes-256-gcm).\n');
    expect(await stateText()).not.toContain(VALUE);
    expect((await fs.stat(path.join(dir, 'credentials.key'))).mode & 0o777).toBe(0o600);
    const list = JSON.parse((await handoff(['credentials', '--json'])).out) as { name: string }[];
    expect(list.map((c) => c.name)).toEqual(['LINEAR_API_KEY']);
  });

  it('reads --value-file, and takes --value with a warning about shell history', async () => {
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-cli-value-'));
    const file = path.join(elsewhere, 'token.txt');
    await fs.writeFile(file, 'gh-token-from-file\n', { mode: 0o600 });
    expect((await handoff(['credentials', 'set', 'GITHUB_TOKEN', '--value-file', file])).out).toContain(
      'Set GITHUB_TOKEN',
    );
    const { err } = await handoff(['credentials', 'set', 'SLACK_BOT_TOKEN', '--value', 'xoxb-from-argv']);
    expect(err).toMatch(/shell history/);
    expect(await stateText()).not.toMatch(/gh-token-from-file|xoxb-from-argv/);
    await fs.rm(elsewhere, { recursive: true, force: true });
  });

  it('refuses an empty value and a badly named credential', async () => {
    await expect(handoff(['credentials', 'set', 'EMPTY_ONE'], '\n')).rejects.toThrow(/no value given/);
    await expect(handoff(['credentials', 'set', 'lower'], 'x')).rejects.toThrow(/UPPER_SNAKE_CASE/);
  });
});

describe('handoff integrations', () => {
  it('lists every entry with its status', async () => {
    const rows = JSON.parse((await handoff(['integrations', '--json'])).out) as {
      name: string;
      status: string;
    }[];
    const status = Object.fromEntries(rows.map((r) => [r.name, r.status]));
    expect(status).toMatchObject({ linear: 'ready', github: 'ready', slack: 'ready' });
    expect(status.gmail).toBe('needs credential GMAIL_CLIENT_ID');
    const table = (await handoff(['integrations'])).out;
    expect(table).toMatch(/^NAME\s+KIND\s+STATUS/);
    expect(table).toMatch(/fetch\s+stdio\s+.*none needed/);
  });

  it('adds a remote server with its bearer credential', async () => {
    const { out } = await handoff([
      'integrations',
      'add',
      'tickets',
      '--url',
      'http://127.0.0.1:9/mcp',
      '--credential',
      'TICKETS_TOKEN',
      '--json',
    ]);
    expect(JSON.parse(out)).toEqual({ name: 'tickets', status: 'needs credential TICKETS_TOKEN' });
  });

  it('adds a stdio server, passing credentials as the child environment', async () => {
    await handoff([
      'integrations',
      'add',
      'local',
      '--stdio',
      `node "my server.js" --mode 'read only'`,
      '--credential',
      'API_KEY=TICKETS_TOKEN',
      '--write',
      'send',
      '--irreversible',
      'send',
    ]);
    const { entry } = await getEntry(new JsonFileStore(workspaceDir(dir, 'default')), 'local');
    expect(entry.transport).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['my server.js', '--mode', 'read only'],
      env: {},
      credential_env: { API_KEY: 'TICKETS_TOKEN' },
    });
    expect(entry).toMatchObject({ writes: ['send'], irreversible: ['send'], credential_free: false });
  });

  it('needs exactly one of --stdio and --url', async () => {
    await expect(handoff(['integrations', 'add', 'nothing'])).rejects.toThrow(/exactly one of --stdio/);
  });

  it('disables a built-in and sets a template on one', async () => {
    await handoff(['integrations', 'disable', 'github']);
    await handoff([
      'integrations',
      'template',
      'linear',
      'create_issue',
      '{"team":"ENG","title":"{{item.subject}}"}',
    ]);
    const rows = JSON.parse((await handoff(['integrations', '--json'])).out) as {
      name: string;
      status: string;
    }[];
    expect(rows.find((r) => r.name === 'github')?.status).toBe('disabled');
    expect(
      (await getEntry(new JsonFileStore(workspaceDir(dir, 'default')), 'linear')).entry.templates
        .create_issue,
    ).toEqual({
      team: 'ENG',
      title: '{{item.subject}}',
    });
    await expect(handoff(['integrations', 'template', 'linear', 'x', '[1]'])).rejects.toThrow(/JSON object/);
  });

  it('splits a command line as a shell would, without expanding anything', () => {
    expect(splitCommand(`npx -y "@scope/pkg" 'a $HOME' plain\\ `)).toEqual([
      'npx',
      '-y',
      '@scope/pkg',
      'a $HOME',
      'plain\\',
    ]);
  });
});
