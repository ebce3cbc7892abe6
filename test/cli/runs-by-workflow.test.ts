import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { runCli } from '../support/cli.ts';
import { startDynalite } from '../support/dynalite.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

type Row = { run_id: string; workflow_id: string; started_at: string };

it.each(['JSON files', 'DynamoDB'])(
  "`handoff runs --workflow ID` lists that workflow's runs, newest first (%s)",
  async (backend) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-by-workflow-'));
    const dynalite = backend === 'DynamoDB' ? await startDynalite() : undefined;
    try {
      const env = {
        HANDOFF_STATE_DIR: path.join(dir, 'state'),
        ...(dynalite
          ? { USE_DYNAMODB: 'true', DYNAMODB_ENDPOINT: dynalite.endpoint, HANDOFF_TABLE: 'h-runs' }
          : {}),
      };
      expect((await runCli(['store', 'init'], env)).code).toBe(0);
      const file = path.join(dir, 'inbox.yaml');
      await fs.writeFile(file, workflowYaml(path.join(dir, 'no-such-maildir')));
      expect((await runCli(['workflows', 'add', file], env)).code).toBe(0);
      await runCli(['run', 'inbox'], env);
      await runCli(['run', 'inbox'], env);

      const mine = await runCli(['runs', '--workflow', 'inbox', '--json'], env);
      expect(mine.code).toBe(0);
      const rows = JSON.parse(mine.stdout) as Row[];
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => r.workflow_id === 'inbox')).toBe(true);
      expect(rows[0]!.started_at >= rows[1]!.started_at).toBe(true);
      const other = await runCli(['runs', '--workflow', 'no-such-workflow', '--json'], env);
      expect(JSON.parse(other.stdout)).toEqual([]);
      await runCli(['run', 'inbox'], env);

      // --limit and --cursor: --json stays an array, the next page's command on stderr.
      const first = await runCli(['runs', '--limit', '2', '--json'], env);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toHaveLength(2);
      const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
      expect(cursor).toBeDefined();
      const second = await runCli(['runs', '--limit', '2', '--cursor', cursor!, '--json'], env);
      expect(second.code).toBe(0);
      const rest = JSON.parse(second.stdout) as Row[];
      expect(rest).toHaveLength(1);
      expect(second.stderr).not.toContain('--cursor');
      const ids = [...(JSON.parse(first.stdout) as Row[]), ...rest].map((r) => r.run_id);
      expect(new Set(ids).size).toBe(3);
      const bad = await runCli(['runs', '--cursor', 'nope'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr.split('\n').filter((l) => l.startsWith('handoff:'))).toEqual([
        'handoff: cursor: not one this list gave; start again without it',
      ]);
      expect((await runCli(['runs', '--limit', '0'], env)).code).toBe(2);
      const audit = await runCli(['audit', '--limit', '1', '--json'], env);
      expect(JSON.parse(audit.stdout)).toHaveLength(1);
      expect(audit.stderr).toMatch(/More: handoff audit --limit 1 --cursor \S+/);
      expect((await runCli(['audit', '--run', 'run_nope'], env)).code).toBe(1);
      const unknownRun = await runCli(['pending', '--run', 'run_nope'], env);
      expect(unknownRun.code).toBe(1);
      expect(unknownRun.stderr).toMatch(/no run "run_nope"/);
      expect(JSON.parse((await runCli(['pending', '--workflow', 'inbox', '--json'], env)).stdout)).toEqual(
        [],
      );
    } finally {
      await dynalite?.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
