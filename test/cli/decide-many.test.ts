import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { mail, workflowYaml } from '../support/engine-fixture.ts';

interface Pending {
  decision_id: string;
  sender: string;
  suggested_action: string;
}
interface Result {
  id: string;
  action: string;
  ok: boolean;
  error?: string;
  learned_rule?: { id: string; pattern: string; action: string };
  learned?: string;
  run_id?: string;
  run_status?: string;
}

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

let dir: string;
let env: Record<string, string>;
let pending: Pending[];
let runId: string;
const idOf = (sender: string) => pending.find((p) => p.sender === sender)!.decision_id;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-decide-many-'));
  const maildir = path.join(dir, 'Maildir');
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await writeMaildir(maildir, [
    neutral('tomi@fastmail.example', 'Following up'),
    neutral('ana@partnerco.example', 'Statement for the quarter'),
    neutral('billing@vendorx.example', 'Account notice'),
    neutral('bo@otherco.example', 'A question'),
    neutral('cy@otherco.example', 'Another question'),
  ]);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
  const run = await cliJson<{ run_id: string }>(['run', 'inbox'], env);
  expect(run).toMatchObject({ status: 'waiting', deferred: 5 });
  runId = run.run_id;
  pending = await cliJson<Pending[]>(['pending'], env);
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it('says what an answer taught, in words and as the rule to undo', async () => {
  const [tomi, ...more] = await cliJson<Result[]>(
    ['decide', idOf('tomi@fastmail.example'), 'draft_reply'],
    env,
  );
  expect(more).toEqual([]);
  expect(tomi).toMatchObject({
    id: idOf('tomi@fastmail.example'),
    action: 'draft_reply',
    ok: true,
    learned: 'From now on: mail from tomi@fastmail.example → draft a reply',
    learned_rule: { id: expect.stringMatching(/^rule_/), action: 'draft_reply', pattern: expect.any(String) },
    run_status: 'waiting',
  });
  const rules = await cliJson<{ id: string }[]>(['rules'], env);
  expect(rules.map((r) => r.id)).toEqual([tomi!.learned_rule!.id]);
});

it('answers many ids with one action in one process; --once teaches nothing', async () => {
  const ids = [idOf('ana@partnerco.example'), idOf('billing@vendorx.example')];
  const said = await runCli(['decide', ...ids, 'skip', '--once'], env);
  expect({ code: said.code, stderr: said.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = said.stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  for (const [i, line] of lines.entries())
    expect(line).toBe(
      `Recorded for ${ids[i]}: Left alone. Nothing learned (just this once). Run ${runId} is waiting.`,
    );
  expect(await cliJson<unknown[]>(['rules'], env)).toHaveLength(1); // the earlier rule only
});

it('answers each independently: one refused answer does not stop the others, and the exit says so', async () => {
  const bo = idOf('bo@otherco.example');
  const result = await runCli(
    ['decide', 'dec_nope', bo, 'archive', '--note', 'just this once', '--json'],
    env,
  );
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/dec_nope.*no decision/)]);
  const results = JSON.parse(result.stdout) as Result[];
  expect(results).toEqual([
    { id: 'dec_nope', action: 'archive', ok: false, error: expect.stringMatching(/no decision "dec_nope"/) },
    expect.objectContaining({ id: bo, ok: true, learned: 'Nothing learned (just this once)' }),
  ]);
  // Answered already: refused, changes nothing.
  const again = await runCli(['decide', bo, 'skip', '--json'], env);
  expect(again.code).toBe(1);
  expect((JSON.parse(again.stdout) as Result[])[0]).toMatchObject({
    ok: false,
    error: expect.stringMatching(/already answered/),
  });
});

it('--all-suggested --run with a run that does not exist says so and exits 1, answering nothing', async () => {
  const before = await cliJson<Pending[]>(['pending'], env);
  for (const args of [
    ['decide', '--all-suggested', '--run', 'run_nope'],
    ['decide', '--all-suggested', '--run', 'run_nope', '--json'],
  ]) {
    const result = await runCli(args, env);
    expect({ args, code: result.code }).toEqual({ args, code: 1 });
    expect(result.stderr.trim()).toMatch(/^handoff: no run "run_nope"/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  }
  expect(await cliJson<Pending[]>(['pending'], env)).toEqual(before);
  // The run's own id still works (and answering is left to the next test).
  expect(
    (await runCli(['decide', '--all-suggested', '--run', runId, '--from', 'nobody.example'], env)).code,
  ).toBe(0);
});

it('--all-suggested answers each matching question with its own suggestion and the run completes', async () => {
  const none = await cliJson<Result[]>(['decide', '--all-suggested', '--from', 'nobody.example'], env);
  expect(none).toEqual([]);
  const cy = pending.find((p) => p.sender === 'cy@otherco.example')!;
  const results = await cliJson<Result[]>(
    ['decide', '--all-suggested', '--from', '@OTHERCO.example', '--once'],
    env,
  );
  expect(results).toEqual([
    expect.objectContaining({
      id: cy.decision_id,
      action: 'approve_suggested',
      ok: true,
      learned: 'Nothing learned (just this once)',
      run_status: 'completed',
    }),
  ]);
  expect(await cliJson<unknown[]>(['pending'], env)).toEqual([]);
  const audit = await cliJson<{ item_id: string; action: string; decided_by: string }[]>(['audit'], env);
  expect(
    audit
      .filter((e) => e.decided_by === 'human')
      .map((e) => e.action)
      .sort(),
  ).toEqual(['archive', 'draft_reply', cy.suggested_action, 'skip', 'skip'].sort());
});

it('refuses a wrong command line with exit 2', async () => {
  for (const args of [
    ['decide', 'dec_only'],
    ['decide', '--all-suggested', 'dec_x', 'archive'],
    ['decide', 'dec_x', 'archive', '--run', 'run_x'],
    // The action forgotten, or put first: the last word is an id.
    ['decide', 'dec_46777dd6_02e11df179aa', 'dec_46777dd6_4855910cf6e0'],
    ['decide', 'archive', 'dec_46777dd6_02e11df179aa'],
  ]) {
    const result = await runCli(args, env);
    expect({ args, code: result.code }).toEqual({ args, code: 2 });
  }
});
