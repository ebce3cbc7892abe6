import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { childEnv } from '../support/child-env.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** Runs examples/embedded-agent.ts as a person would (it imports `handoff/embedded`, the package export). */
function runExample(
  input: string | null,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, 'examples/embedded-agent.ts'], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    if (input !== null) child.stdin.end(input); // null: the person never answers (stdin stays open)
  });
}

it('the embedded example files the sure issue alone and acts on the asked calls only as the person answers', async () => {
  const { code, stdout } = await runExample('skip\napprove\n');

  expect(code).toBe(0);
  expect(stdout.match(/approve or skip\?/g)).toHaveLength(2); // the unsure issue and the deletion, one prompt each
  expect(stdout).toContain('create_issue: acted, decided by model');
  expect(stdout).toContain('create_issue: skipped (person), decided by human');
  expect(stdout).toContain('delete_branch: acted, decided by human');
  expect(stdout).toContain('Tool bodies run: create_issue 1, delete_branch 1');
});

it('the embedded example skips every asked call when the person does not answer in time', async () => {
  const { code, stdout } = await runExample(null, { ASK_TIMEOUT_MS: '300' });

  expect(code).toBe(0);
  expect(stdout).toContain('create_issue: skipped (ask_timeout), decided by nobody');
  expect(stdout).toContain('delete_branch: skipped (ask_timeout), decided by nobody');
  expect(stdout).toContain('Tool bodies run: create_issue 1, delete_branch 0');
});
