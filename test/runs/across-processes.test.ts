import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { startDynalite } from '../support/dynalite.ts';
import { cliWorkspace, mail, NEWSLETTER } from '../support/engine-fixture.ts';

interface Pending {
  decision_id: string;
  run_id: string;
  interrupt_id: string;
  subject: string;
  suggested_action: string;
}

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite?.stop());

const backends = {
  'JSON files': (dir: string) => ({ HANDOFF_STATE_DIR: path.join(dir, 'state') }),
  DynamoDB: (dir: string) => ({
    USE_DYNAMODB: 'true',
    HANDOFF_TABLE: `handoff-${path.basename(dir)}`,
    DYNAMODB_ENDPOINT: dynalite.endpoint,
    HANDOFF_STATE_DIR: path.join(dir, 'state'),
  }),
};

describe.each(Object.entries(backends))(
  'a run paused in one process resumes in another (%s)',
  (_name, backendEnv) => {
    it('pauses with `handoff run`, then a later `handoff decide` finishes the same run', async () => {
      const { dir, maildir, workflowFile } = await cliWorkspace('handoff-xproc-', [
        mail(NEWSLETTER),
        mail({ from: 'jo@synergia.example', subject: 'Strategic partnership opportunity' }),
        mail({ from: 'tomi@fastmail.example', subject: 'Following up' }),
      ]);
      const env = backendEnv(dir);

      expect((await runCli(['store', 'init'], env)).code).toBe(0);
      expect(await cliJson(['workflows', 'add', workflowFile], env)).toEqual({ id: 'inbox' });
      const run = await cliJson<{ run_id: string; status: string; interrupt_id: string }>(
        ['run', 'inbox'],
        env,
      );
      expect(run.status).toBe('waiting');

      const pending = await cliJson<Pending[]>(['pending'], env);
      expect(pending.length).toBeGreaterThanOrEqual(2);
      expect(pending.every((p) => p.run_id === run.run_id && p.interrupt_id === run.interrupt_id)).toBe(true);
      const inboxBefore = await fs.readdir(path.join(maildir, 'new'));

      // Each answer is its own process, and takes effect as it arrives (issue 29): its item is
      // archived and audited while the run still waits; the process that gives the last one
      // resumes the run, which completes.
      for (const [index, p] of pending.entries()) {
        const last = index === pending.length - 1;
        const [answer] = await cliJson<{ run_status: string }[]>(
          ['decide', p.decision_id, 'archive', '--note', `answer ${index}`],
          env,
        );
        expect(answer!.run_status).toBe(last ? 'completed' : 'waiting');
        if (last) continue;
        expect(await fs.readdir(path.join(maildir, 'new'))).toHaveLength(inboxBefore.length - index - 1);
        const byYou = (
          await cliJson<{ decided_by: string | null }[]>(['audit', '--run', run.run_id], env)
        ).filter((e) => e.decided_by === 'human');
        expect(byYou).toHaveLength(index + 1);
      }

      const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
      expect(runs).toEqual([expect.objectContaining({ run_id: run.run_id, status: 'completed' })]);
      const audit = await cliJson<{ item_id: string | null; outcome: string; decided_by: string | null }[]>(
        ['audit', '--run', run.run_id],
        env,
      );
      expect(audit.filter((e) => e.decided_by === 'human')).toHaveLength(pending.length);
      expect(await fs.readdir(path.join(maildir, 'new'))).toEqual([]);
      await fs.rm(dir, { recursive: true, force: true });
    });
  },
);
