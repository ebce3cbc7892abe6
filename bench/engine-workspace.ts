/**
 * Where engine bench runs happen: a temp folder holding the state directory (or a DynamoDB
 * table on dynalite, or memory) and the mailbox (a Maildir, or a seeded Dovecot over IMAP),
 * the engine wired to them with the offline model timed and the store counted, and the
 * inbox-triage workflow saved. A cold run opens one for itself; a warm series keeps one for
 * all its runs, as a server's scheduler works in one workspace and one mailbox.
 */
import { mkdtemp, readdir, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadEnv } from '../shared/config/env.ts';
import type { ModelFactory } from '../shared/models/provider.ts';
import type { EngineDeps } from '../shared/runs/deps.ts';
import { expireDue } from '../shared/runs/housekeeping.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { writeMaildir, type MessageSpec } from '../shared/sources/maildir/generate.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import type { Store } from '../shared/store/store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import type { ImapSourceConfig } from '../shared/workflows/schema.ts';
import { openBenchTable } from './bench-dynamo.ts';
import { startImapSource, type ImapBench } from './imap-bench.ts';
import { TimedOfflineModel, countingStore, silentNotifier, type CountingStore } from './instruments.ts';
import { MemoryStore } from './memory-store.ts';

export const WORKFLOW_ID = 'inbox-triage';
/** Far enough ahead that every open question is past its deadline. */
const LAPSE_MS = 400 * 86_400_000;

/** Which store and mailbox a workspace has. */
export interface WorkspaceOptions {
  source: 'maildir' | 'imap';
  store: 'json' | 'memory' | 'dynamodb';
  /** dynalite's endpoint, for the DynamoDB store. */
  dynamodbEndpoint?: string | undefined;
  /** Leave the temp folder in place (its path on stderr). */
  keep: boolean;
}

export interface BenchWorkspace {
  readonly kind: WorkspaceOptions['store'];
  readonly deps: EngineDeps;
  /** The store the engine uses, counting and timing each call. */
  readonly store: CountingStore;
  /** Every model the engine made (the executor, a learner per answer, ...), for their time. */
  readonly models: TimedOfflineModel[];
  readonly imap: ImapBench | null;
  /** Delivers `messages` to the Maildir's INBOX (an IMAP workspace got its mail when it opened). */
  deliver(messages: readonly MessageSpec[]): Promise<void>;
  /**
   * After a run of a warm series, untimed: its questions lapse (expired: their items are
   * never acted, the run completes) and the INBOX is emptied, so the next run finds the
   * workspace as a scheduled run finds it, earlier runs settled, only its own mail new.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

async function openStore(
  opts: WorkspaceOptions,
  stateDir: string,
): Promise<{ store: Store; drop: () => Promise<void> }> {
  if (opts.store === 'memory') return { store: new MemoryStore(), drop: async () => {} };
  if (opts.store === 'json') return { store: new JsonFileStore(stateDir), drop: async () => {} };
  if (!opts.dynamodbEndpoint) throw new Error('the dynamodb store needs --dynamodb-endpoint');
  return openBenchTable(opts.dynamodbEndpoint);
}

/** The engine on `store` with the offline model, every model it makes timed and kept in `models`; it tells no one. */
export function benchEngine(
  store: Store,
  stateDir: string,
): { deps: EngineDeps; models: TimedOfflineModel[] } {
  const models: TimedOfflineModel[] = [];
  const factory: ModelFactory = async () => {
    const model = new TimedOfflineModel();
    models.push(model);
    return model;
  };
  const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
  return {
    deps: engineFromEnv(env, { store, models: factory, notifier: silentNotifier, emit: () => {} }),
    models,
  };
}

/** Saves the inbox-triage demo workflow reading the Maildir at `maildir`, or `source` when given. */
export async function saveTriageWorkflow(
  store: Store,
  maildir: string,
  source?: ImapSourceConfig,
): Promise<void> {
  let yaml = demoWorkflowYaml(maildir);
  if (source) yaml = yaml.replace(/^source: .*$/m, `source: ${JSON.stringify(source)}`);
  await saveWorkflow(store, parseWorkflow(yaml, `${WORKFLOW_ID}.yaml`));
}

/** Opens a workspace; an IMAP one starts Dovecot holding `imapMessages`. */
export async function openWorkspace(
  opts: WorkspaceOptions,
  imapMessages: readonly MessageSpec[] = [],
): Promise<BenchWorkspace> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-'));
  const maildir = path.join(root, 'Maildir');
  const stateDir = path.join(root, 'state');
  const opened = await openStore(opts, stateDir);
  let imap: ImapBench | null = null;
  const close = async () => {
    await imap?.stop();
    await opened.drop();
    if (!opts.keep) await rm(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
  };
  try {
    if (opts.source === 'imap') imap = await startImapSource(imapMessages);
    else await writeMaildir(maildir, []);
    const store = countingStore(opened.store);
    const { deps, models } = benchEngine(store, stateDir);
    if (imap) await imap.storeCredential(deps.credentials);
    await saveTriageWorkflow(store, maildir, imap?.source);
    return {
      kind: opts.store,
      deps,
      store,
      models,
      imap,
      async deliver(messages) {
        await writeMaildir(maildir, messages);
      },
      async settle() {
        await expireDue(deps, new Date(Date.now() + LAPSE_MS));
        for (const folder of ['new', 'cur'])
          for (const name of await readdir(path.join(maildir, folder)))
            await unlink(path.join(maildir, folder, name));
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
