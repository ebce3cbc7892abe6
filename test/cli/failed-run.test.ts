import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { runCli } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

it('a run whose source cannot be read prints one line on stderr: the failure notice, with the reason and the run link', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-failed-'));
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state'), UI_BASE_URL: 'http://ui.example' };
  const file = path.join(dir, 'inbox.yaml');
  await fs.writeFile(file, workflowYaml(path.join(dir, 'no-such-maildir')));
  expect((await runCli(['workflows', 'add', file], env)).code).toBe(0);

  for (const args of [
    ['run', 'inbox'],
    ['run', 'inbox', '--json'],
  ]) {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1); // not the agent SDK's own "node execution failed" as well
    expect(lines[0]).toMatch(
      /^\[handoff\] Test inbox: run (run_\S+) failed: .*no-such-maildir.* — http:\/\/ui\.example\/runs\/run_\S+$/,
    );
  }

  // The SDK's lines were routed, not lost: the debug flag shows them, through the product's log.
  const debug = await runCli(['run', 'inbox'], { ...env, HANDOFF_DEBUG: '1' });
  expect(debug.stderr).toMatch(/^handoff: debug: sdk: .*node execution failed$/m);
  expect(debug.stderr.split('\n').filter((l) => l.includes('node execution failed'))).toHaveLength(1);
});
