/**
 * Nothing crosses a workspace boundary, as a person sees it from the terminal: the same
 * mail in two workspaces, a rule in one; the other still asks. Workspaces are listed,
 * renamed and deleted (only when empty); an unknown one is one line and exit 1.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { startDynalite } from '../support/dynalite.ts';

interface Pending {
  decision_id: string;
  sender: string;
}

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  for (const name of ['a', 'b']) {
    await createDemoMaildir(path.join(dir, name, 'Maildir'));
    await fs.writeFile(path.join(dir, `${name}.yaml`), demoWorkflowYaml(path.join(dir, name, 'Maildir')));
  }
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe.each(['JSON files', 'DynamoDB'])('workspaces from the terminal (%s)', (backend) => {
  let store: Record<string, string>;
  let dynalite: { endpoint: string; stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    dynalite = backend === 'DynamoDB' ? await startDynalite() : undefined;
    store = dynalite
      ? { ...env, USE_DYNAMODB: 'true', DYNAMODB_ENDPOINT: dynalite.endpoint, HANDOFF_TABLE: 'h-ws' }
      : { HANDOFF_STATE_DIR: path.join(dir, 'isolation-state') };
    expect((await runCli(['store', 'init'], store)).code).toBe(0);
  });
  afterAll(() => dynalite?.stop());

  it('keeps rules, runs and questions inside their workspace', async () => {
    const env = store;
    expect(await cliJson(['workspaces', 'add', 'team-b'], env)).toMatchObject({ name: 'team-b' });
    await cliJson(['workflows', 'add', path.join(dir, 'a.yaml')], env);
    await cliJson(['workflows', 'add', path.join(dir, 'b.yaml'), '--workspace', 'team-b'], env);

    // team-b asks about the unsure mail.
    await cliJson(['run', 'inbox-triage', '--workspace', 'team-b'], env);
    const askedInB = await cliJson<Pending[]>(['pending', '--workspace', 'team-b'], env);
    expect(askedInB.length).toBeGreaterThan(0);
    const sender = askedInB[0]!.sender;

    // A rule for that sender in default: default's run does not ask about it.
    await cliJson(
      ['rules', 'add', '--sender', sender, '--action', 'archive', '--workflow', 'inbox-triage'],
      env,
    );
    await cliJson(['run', 'inbox-triage'], env);
    const askedInDefault = await cliJson<Pending[]>(['pending'], env);
    expect(askedInDefault.map((p) => p.sender)).not.toContain(sender);

    // The rule never fires in team-b: its questions and rules are as they were.
    const rulesInB = await cliJson<unknown[]>(['rules', '--workspace', 'team-b'], env);
    expect(rulesInB).toEqual([]);
    const stillAsked = await cliJson<Pending[]>(['pending'], { ...env, HANDOFF_WORKSPACE: 'team-b' });
    expect(stillAsked.map((p) => p.sender)).toContain(sender);
    // A decision of team-b cannot be answered from default.
    const wrong = await runCli(['decide', askedInB[0]!.decision_id, 'archive'], env);
    expect(wrong.code).toBe(1);
    expect(await cliJson<Pending[]>(['pending', '--workspace', 'team-b'], env)).toHaveLength(askedInB.length);

    const listed = await cliJson<{ name: string; workflows: number; pending: number }[]>(['workspaces'], env);
    expect(listed.map((w) => [w.name, w.workflows])).toEqual([
      ['default', 1],
      ['team-b', 1],
    ]);
    expect(listed.find((w) => w.name === 'team-b')!.pending).toBe(askedInB.length);
  }, 90_000);
});

describe('managing workspaces and keys', () => {
  beforeAll(async () => {
    await cliJson(['workspaces', 'add', 'team-b'], env);
    await cliJson(['workflows', 'add', path.join(dir, 'b.yaml'), '--workspace', 'team-b'], env);
  });

  it('renames and deletes only an empty workspace; bad names and unknown workspaces are one line', async () => {
    await cliJson(['workspaces', 'add', 'scratch'], env);
    expect(await cliJson(['workspaces', 'rename', 'scratch', 'sandbox'], env)).toMatchObject({
      id: 'scratch',
      name: 'sandbox',
    });
    const notEmpty = await runCli(['workspaces', 'delete', 'team-b'], env);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toMatch(/workspace "team-b" is not empty: it has 1 workflows/);
    const defaultStays = await runCli(['workspaces', 'delete', 'default'], env);
    expect(defaultStays.code).toBe(1);
    expect(await cliJson(['workspaces', 'delete', 'sandbox'], env)).toMatchObject({ deleted: 'sandbox' });

    for (const [args, message] of [
      [['workspaces', 'add', 'Team B'], /workspace name "Team B" is not valid/],
      [['workspaces', 'add', 'team-b'], /workspace "team-b" already exists/],
      [['runs', '--workspace', 'nowhere'], /no workspace "nowhere"/],
      [['workspaces', 'rename', 'nowhere', 'x'], /no workspace "nowhere"/],
    ] as const) {
      const result = await runCli([...args], env);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
    const names = (await cliJson<{ name: string }[]>(['workspaces'], env)).map((w) => w.name);
    expect(names).toEqual(['default', 'team-b']);
  });

  it('makes scoped API keys, lists them without their values, revokes them', async () => {
    const made = await cliJson<{ id: string; key: string; workspace: string }>(
      ['keys', 'add', '--workspace', 'team-b'],
      env,
    );
    expect(made.workspace).toBe('team-b');
    expect(made.key).toMatch(/^hk_[0-9a-f]{12}_/);
    const listed = await runCli(['keys', '--json'], env);
    const secret = made.key.slice(`hk_${made.id}_`.length); // base64url: may itself hold '_'
    expect(secret).toHaveLength(43);
    expect(listed.stdout).not.toContain(secret);
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: made.id, workspace: 'team-b', created_at: expect.any(String), revoked_at: null },
    ]);
    expect(await cliJson(['keys', 'revoke', made.id], env)).toMatchObject({ id: made.id });
    const [revoked] = await cliJson<{ revoked_at: string | null }[]>(['keys'], env);
    expect(revoked!.revoked_at).toEqual(expect.any(String));
    const unknown = await runCli(['keys', 'revoke', 'nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no API key nope/);
  });
});
