import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { runCli, type CliResult } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

/**
 * `--json` changes the format only: every command exits the same with and without it
 * (README, Command line: 0 it worked, 1 it failed or was refused, 2 bad command line).
 */
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-exit-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const maildir = path.join(dir, 'Maildir');
  await createDemoMaildir(maildir);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  // A source that cannot be read: the run fails.
  await fs.writeFile(
    path.join(dir, 'broken.yaml'),
    workflowYaml(path.join(dir, 'no-such-maildir')).replace(/^id: .*$/m, 'id: broken'),
  );
  await fs.writeFile(path.join(dir, 'bad.yaml'), 'id: bad\nname: Bad\n');
});

/** Runs `handoff ARGS` as people do and as scripts do; both must exit `code`. */
async function bothWays(
  args: string[],
  code: number,
  extraEnv: Record<string, string> = {},
): Promise<{ plain: CliResult; json: CliResult }> {
  const plain = await runCli(args, { ...env, ...extraEnv });
  const json = await runCli([...args, '--json'], { ...env, ...extraEnv });
  expect({ args, plain: plain.code, json: json.code }).toEqual({ args, plain: code, json: code });
  if (code === 0) expect(() => JSON.parse(json.stdout) as unknown).not.toThrow();
  else if (code === 1)
    for (const result of [plain, json]) expect(result.stderr.trim().split('\n')).toHaveLength(1);
  return { plain, json };
}

/** For commands that change something once: the first as people run it, the second as scripts do. */
async function oneEachWay(commands: string[][]): Promise<void> {
  expect(commands).toHaveLength(2);
  const plain = await runCli(commands[0]!, env);
  const json = await runCli([...commands[1]!, '--json'], env);
  expect({ plain: plain.code, json: json.code, stderr: plain.stderr + json.stderr }).toEqual({
    plain: 0,
    json: 0,
    stderr: '',
  });
  expect(() => JSON.parse(json.stdout) as unknown).not.toThrow();
}

const parsed = <T>(result: CliResult): T => JSON.parse(result.stdout) as T;

describe('exit codes are the same with and without --json', () => {
  it('for every command, when it works', async () => {
    await bothWays(['store', 'init'], 0);
    await bothWays(['templates'], 0);
    const template = await bothWays(['templates', 'inbox-triage'], 0);
    expect(parsed<{ id: string; yaml: string }>(template.json)).toEqual({
      id: 'inbox-triage',
      yaml: template.plain.stdout,
    });
    // The second of the pair replaces the first's workflow: it says so with --replace.
    await bothWays(['workflows', 'add', path.join(dir, 'inbox.yaml'), '--replace'], 0);
    await bothWays(['workflows'], 0);
    await bothWays(['sources', 'check', 'inbox'], 0);
    await bothWays(['rules', 'add', '--domain', 'infraweekly.example', '--action', 'archive'], 0);
    const rules = parsed<{ id: string }[]>((await bothWays(['rules'], 0)).json);
    await oneEachWay(rules.map((r) => ['rules', 'delete', r.id]));

    // A run that paused for answers is a success.
    const run = await bothWays(['run', 'inbox'], 0);
    expect(run.plain.stdout).toMatch(/: waiting/);
    const pending = parsed<{ decision_id: string }[]>((await bothWays(['pending'], 0)).json);
    await oneEachWay(pending.slice(0, 2).map((d) => ['decide', d.decision_id, 'skip']));
    await bothWays(['audit'], 0);
    await bothWays(['runs'], 0);

    // And the commands beyond the README's table.
    await bothWays(['inspect', parsed<{ run_id: string }>(run.json).run_id], 0);
    for (const command of ['stats', 'usage', 'integrations', 'credentials', 'doctor'])
      await bothWays([command], 0);
  });

  it('when a command fails or is refused: 1, with one line on stderr', async () => {
    await bothWays(['run', 'no-such-workflow'], 1);
    await bothWays(['workflows', 'add', path.join(dir, 'bad.yaml')], 1);
    await bothWays(['workflows', 'add', path.join(dir, 'missing.yaml')], 1);
    const again = await bothWays(['workflows', 'add', path.join(dir, 'inbox.yaml')], 1); // its id exists
    expect(again.plain.stderr).toMatch(/already exists; add --replace/);
    await bothWays(['decide', 'dec_nope', 'archive'], 1);
    await bothWays(['rules', 'delete', 'rule_nope'], 1);
    await bothWays(['rules', 'restore', 'rule_nope'], 1);
    await bothWays(['rules', 'add', '--keywords', 'invoice', '--action', 'archive'], 1);
    await bothWays(['templates', 'no-such-template'], 1);
    await bothWays(['inspect', 'run_nope'], 1);
    await bothWays(['audit', '--run', 'run_nope'], 1);
    await bothWays(['sources', 'check', 'no-such-workflow'], 1);
    await bothWays(['doctor'], 1, { NOTIFY_CHANNEL: 'slack' }); // a channel that is not configured
  });

  it('prints the installed version with --version', async () => {
    const pkg = JSON.parse(await fs.readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const result = await runCli(['--version'], env);
    expect({ code: result.code, out: result.stdout.trim() }).toEqual({ code: 0, out: pkg.version });
  });

  it('when the command line is wrong: 2', async () => {
    await bothWays(['frobnicate'], 2);
    await bothWays(['run'], 2);
    await bothWays(['runs', '--colour'], 2);
  });

  it('when the run fails: 1, and its JSON says why, keeping every field', async () => {
    await bothWays(['workflows', 'add', path.join(dir, 'broken.yaml'), '--replace'], 0);
    const { plain, json } = await bothWays(['run', 'broken'], 1);
    const summary = parsed<Record<string, unknown>>(json);
    expect(Object.keys(summary).sort()).toEqual(
      ['acted', 'by_memory', 'counts', 'deferred', 'error', 'interrupt_id', 'run_id', 'status'].sort(),
    );
    expect(summary).toMatchObject({ status: 'failed', error: expect.stringMatching(/no-such-maildir/) });
    expect(plain.stdout).toMatch(/failed[\s\S]*Reason: .*no-such-maildir/);
  });
});
