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
    } finally {
      await dynalite?.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
