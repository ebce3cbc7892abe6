/**
 * The last answer and the resume alone, timed over and over on copies of one waiting run:
 * a quick check of a change to the resume path without a whole `npm run bench`. Set-up runs
 * inbox-triage over N seeded messages (JSON-file store, offline model) and answers every
 * question but the last through the decide path; each repeat copies that state afresh and
 * gives the last answer (which resumes the run and carries out every answer). The copy is
 * synced to disk before the clock starts.
 *
 *   tsx bench/resume-last.ts                       # 1,000 messages, 5 repeats
 *   tsx bench/resume-last.ts --size 100 --repeats 3 --keep
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadEnv } from '../shared/config/env.ts';
import type { ModelFactory } from '../shared/models/provider.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import { decide } from '../shared/runs/decide.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { DEFAULT_SEED, generateInbox } from './generate-mail.ts';
import { TimedOfflineModel, countingStore, round, silentNotifier, wholeNumberFlag } from './instruments.ts';
import { answerFor } from './resume.ts';

/** The engine over the state in `root` (its Maildir path is inside the stored workflow). */
function engineAt(root: string) {
  const stateDir = path.join(root, 'state');
  const store = countingStore(new JsonFileStore(stateDir));
  const models: ModelFactory = async () => new TimedOfflineModel();
  const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
  return { store, deps: engineFromEnv(env, { store, models, notifier: silentNotifier, emit: () => {} }) };
}

const wholeNumber = (flag: string, value: string) => wholeNumberFlag('bench', flag, value);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '1000' },
      repeats: { type: 'string', default: '5' },
      keep: { type: 'boolean', default: false },
    },
  });
  const size = wholeNumber('size', values.size);
  const repeats = wholeNumber('repeats', values.repeats);
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-resume-last-'));
  const work = path.join(root, 'work'); // the same path every time: the workflow names its Maildir
  const saved = path.join(root, 'saved');
  try {
    const maildir = path.join(work, 'Maildir');
    await writeMaildir(maildir, generateInbox(size, DEFAULT_SEED).messages);
    const first = engineAt(work);
    await saveWorkflow(first.store, parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml'));
    const run = await startRun(first.deps, 'inbox-triage', { kind: 'manual', detail: null });
    const pending = (await listPending(first.store)).filter((d) => d.run_id === run.id);
    if (pending.length === 0) throw new Error(`the run asked nothing (${run.status})`);
    for (const d of pending.slice(0, -1)) await decide(first.deps, d.id, answerFor(d), null);
    await cp(work, saved, { recursive: true });
    console.log(`${size} messages, ${pending.length} questions; the last answer and the resume:`);
    const times: number[] = [];
    for (let i = 0; i < repeats; i += 1) {
      await rm(work, { recursive: true, force: true });
      await cp(saved, work, { recursive: true });
      // The copy to disk first: left dirty, ext4 writes it out in the resume's first journal sync.
      execFileSync('sync');
      const { store, deps } = engineAt(work);
      const [last] = await listPending(store);
      store.reset();
      const started = performance.now();
      const { run_status } = await decide(deps, last!.id, answerFor(last!), null);
      times.push(performance.now() - started);
      console.log(`  ${Math.round(times.at(-1)!)} ms, run ${run_status}, ${store.writes} store writes`);
    }
    times.sort((a, b) => a - b);
    const s = (ms: number) => round(ms / 1000);
    console.log(
      `median ${s(times[Math.floor(times.length / 2)]!)} s (${s(times[0]!)}–${s(times.at(-1)!)}), ${repeats} runs`,
    );
  } finally {
    if (values.keep) console.log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
}

await main();
