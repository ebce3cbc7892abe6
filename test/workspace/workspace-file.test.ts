import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

/** Every file of a state directory with its content: the store as it is on disk. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = await fs.readFile(file, 'utf8');
  }
  return out;
}

async function ok(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env);
  if (result.code !== 0) throw new Error(`handoff ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

describe('workspace.yml', () => {
  let dir: string;
  let exported: string;
  const stateA = () => ({ HANDOFF_STATE_DIR: path.join(dir, 'a') });
  const stateB = () => ({ HANDOFF_STATE_DIR: path.join(dir, 'b') });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-'));
    const env = stateA();
    await fs.writeFile(
      path.join(dir, 'tone.md'),
      '# Tone of voice\n\nShort, warm sentences. No exclamation marks.\n',
    );
    await fs.writeFile(
      path.join(dir, 'billing.yaml'),
      'description: invoices, receipts and payment reminders\ninstructions: Archive receipts; ask about anything that asks for money.\nactions: [archive]\nskills: [tone-of-voice]\n',
    );
    await fs.writeFile(
      path.join(dir, 'inbox.yaml'),
      workflowYaml(path.join(dir, 'Maildir'), 'skills: [tone-of-voice]\nagents: [billing]\n'),
    );
    await ok(['skills', 'add', 'tone-of-voice', '--file', path.join(dir, 'tone.md')], env);
    await ok(['agents', 'add', 'billing', '--file', path.join(dir, 'billing.yaml')], env);
    await ok(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
    await ok(
      ['profile', 'set', '--name', 'Ana', '--time-zone', 'Europe/Paris', '--quiet-hours', '22:00-07:00'],
      env,
    );
    await ok(
      [
        'rules',
        'add',
        '--domain',
        'vendor.example',
        '--action',
        'archive',
        '--workflow',
        'inbox',
        '--note',
        'receipts',
      ],
      env,
    );
    await ok(
      ['integrations', 'add', 'docs_fetch', '--url', 'https://docs.example/mcp', '--title', 'Docs'],
      env,
    );
    exported = await ok(['workspace', 'export'], env);
  }, 60_000);

  it('round-trips: export, apply into an empty state, export again gives the same file', async () => {
    expect(exported).toContain('tone-of-voice');
    expect(exported).toContain('time_zone: Europe/Paris');
    expect(exported).not.toMatch(/sealed|ciphertext/);
    const file = path.join(dir, 'workspace.yml');
    await fs.writeFile(file, exported);
    const applied = await cliJson<{
      applied: boolean;
      changes: { kind: string; name: string; change: string }[];
    }>(['workspace', 'apply', file], stateB());
    expect(applied.applied).toBe(true);
    expect(applied.changes).toEqual(
      expect.arrayContaining([
        { kind: 'skill', name: 'tone-of-voice', change: 'add' },
        { kind: 'agent', name: 'billing', change: 'add' },
        { kind: 'workflow', name: 'inbox', change: 'add' },
        { kind: 'integration', name: 'docs_fetch', change: 'add' },
      ]),
    );
    expect(await ok(['workspace', 'export'], stateB())).toBe(exported);

    // The same file again changes nothing: not a record, not a version.
    const before = await snapshot(stateB().HANDOFF_STATE_DIR);
    const again = await cliJson<{ changes: unknown[] }>(['workspace', 'apply', file], stateB());
    expect(again.changes).toEqual([]);
    expect(await snapshot(stateB().HANDOFF_STATE_DIR)).toEqual(before);
  }, 60_000);

  it('--dry-run prints the diff and writes nothing', async () => {
    const file = path.join(dir, 'changed.yml');
    await fs.writeFile(
      file,
      exported
        .replace('Short, warm sentences.', 'Short, plain sentences.')
        .replace('name: Ana', 'name: Ana B'),
    );
    const before = await snapshot(stateA().HANDOFF_STATE_DIR);
    const result = await runCli(['workspace', 'apply', file, '--dry-run'], stateA());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('~ skill tone-of-voice (body)');
    expect(result.stdout).toContain('~ profile profile (name)');
    expect(await snapshot(stateA().HANDOFF_STATE_DIR)).toEqual(before);

    // Applied for real, the skill gets a second version and the first is kept.
    await ok(['workspace', 'apply', file], stateA());
    const shown = await cliJson<{ version: number; versions: number[] }>(
      ['skills', 'show', 'tone-of-voice'],
      stateA(),
    );
    expect(shown).toMatchObject({ version: 2, versions: [1, 2] });
    const old = await cliJson<{ body: string }>(
      ['skills', 'show', 'tone-of-voice', '--version', '1'],
      stateA(),
    );
    expect(old.body).toContain('Short, warm sentences.');
  }, 60_000);

  it('lists every problem of a bad file (unknown skill, missing credential, duplicate id) and writes nothing', async () => {
    const bad = exported
      .replaceAll(/^( +)- tone-of-voice$/gm, '$1- tone-of-voce')
      .replace('url: https://docs.example/mcp', 'url: https://docs.example/mcp\n        bearer: DOCS_TOKEN');
    const withDuplicate = bad.replace(/^workflows:\n/m, (m) => `${m}${indentWorkflow(exported)}`);
    const file = path.join(dir, 'bad.yml');
    await fs.writeFile(file, withDuplicate);
    const before = await snapshot(stateA().HANDOFF_STATE_DIR);
    const result = await runCli(['workspace', 'apply', file], stateA());
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^handoff: .*bad\.yml: workflows\.1\.id: duplicate id "inbox" \(also workflows\.0\)$/,
        ),
        expect.stringMatching(
          /bad\.yml: integrations\.0\.entry\.transport: credential DOCS_TOKEN is not set/,
        ),
        expect.stringMatching(/bad\.yml: agents\.0\.skills\.0: no skill "tone-of-voce"/),
        expect.stringMatching(/bad\.yml: workflows\.1\.skills\.0: no skill "tone-of-voce"/),
        'handoff: nothing was applied (4 problems)',
      ]),
    );
    expect(await snapshot(stateA().HANDOFF_STATE_DIR)).toEqual(before);

    await fs.writeFile(file, 'version: 1\nworkflows: [\n');
    const broken = await runCli(['workspace', 'apply', file], stateA());
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/bad\.yml: not valid YAML: .*\(line \d+\)/);
    expect(await snapshot(stateA().HANDOFF_STATE_DIR)).toEqual(before);
  }, 60_000);
});

/** The exported workflow list entry, as text to insert again (a duplicate id). */
function indentWorkflow(yaml: string): string {
  const start = yaml.indexOf('\nworkflows:\n') + '\nworkflows:\n'.length;
  const end = yaml.indexOf('\nrules:', start);
  return `${yaml.slice(start, end)}\n`;
}
