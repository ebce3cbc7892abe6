import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Model } from '@strands-agents/sdk';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import type { FeedEvent } from '../../shared/events/feed.ts';
import type { Notice } from '../../shared/notify/notifier.ts';
import { DecisionLinks } from '../../shared/links/decision-links.ts';
import { noMirror } from '../../shared/memory/mirror.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { writeMaildir, type MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';

export interface EngineFixture {
  dir: string;
  maildir: string;
  deps: EngineDeps;
  store: Store;
  notices: Notice[];
  events: { channel: string; kind: FeedEvent['kind']; text: string }[];
  workflow: Workflow;
  /** Messages currently in new/ and cur/ (file names). */
  inbox(): Promise<string[]>;
  folder(name: string): Promise<string[]>;
  cleanup(): Promise<void>;
}

let counter = 0;

/** A message spec with sensible defaults. */
export function mail(over: Partial<MessageSpec> & { from: string; subject: string }): MessageSpec {
  counter += 1;
  return {
    to: 'me@northwind.example',
    body: 'Hello,\n\nJust a note.\n',
    date: new Date(Date.UTC(2026, 2, 10, 9, counter)),
    messageId: `<m${counter}.${Date.now()}@test.example>`,
    ...over,
  };
}

export function workflowYaml(maildir: string, extra = ''): string {
  return `id: inbox
name: Test inbox
instructions: Archive newsletters and receipts, file bug reports as tickets, draft replies to colleagues.
trigger: { manual: true }
source: { type: maildir, path: ${maildir} }
actions:
  - { name: archive }
  - { name: file_ticket }
  - { name: draft_reply }
  - { name: delete, irreversible: true }
human_gate: { options: [file_ticket, archive, draft_reply, skip] }
${extra}`;
}

/** A workflow whose items arrive with a webhook: the kind a deployed (Lambda) API accepts. */
export function eventWorkflowYaml(id: string): string {
  return `id: ${id}
name: Webhook items
instructions: File a ticket for each item that reports a bug; skip the rest.
trigger: { webhook: true }
source: { type: event }
actions:
  - { name: file_ticket }
human_gate: { options: [file_ticket, skip] }
`;
}

/** A temp Maildir, a JSON-file store and an engine driven by the given model. */
export async function engineFixture(opts: {
  messages: MessageSpec[];
  model: () => Model;
  settings?: Partial<EngineDeps['settings']>;
  store?: Store;
  workflowExtra?: string;
}): Promise<EngineFixture> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-engine-'));
  const maildir = path.join(dir, 'Maildir');
  await writeMaildir(maildir, opts.messages);
  const store = opts.store ?? new JsonFileStore(path.join(dir, 'state'));
  const notices: Notice[] = [];
  const events: EngineFixture['events'] = [];
  const workflow = parseWorkflow(workflowYaml(maildir, opts.workflowExtra), 'inbox.yaml');
  await saveWorkflow(store, workflow);
  const deps: EngineDeps = {
    workspace: 'default',
    store,
    models: async () => opts.model(),
    notifier: { notify: async (notice) => void notices.push(notice) },
    links: new DecisionLinks({ get: async () => Buffer.alloc(32, 7) }, () => 'http://ui.test'),
    credentials: new Credentials(store, LocalCipher.inStateDir(path.join(dir, 'state'))),
    mirror: noMirror,
    dispatcher: null,
    emit: (channel, kind, text) => void events.push({ channel, kind, text }),
    settings: {
      confidenceThreshold: 0.7,
      decisionTtlHours: 72,
      uiBaseUrl: 'http://ui.test',
      pageSize: 10,
      ...opts.settings,
    },
  };
  const list = async (sub: string) => {
    const entries = await fs.readdir(path.join(maildir, sub)).catch(() => []);
    return entries.filter((e) => !e.startsWith('.'));
  };
  return {
    dir,
    maildir,
    deps,
    store,
    notices,
    events,
    workflow,
    inbox: async () => [...(await list('new')), ...(await list('cur'))],
    folder: async (name) => [...(await list(`${name}/new`)), ...(await list(`${name}/cur`))],
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

/** The newsletter every inbox in the tests has: the offline model archives it confidently. */
export const NEWSLETTER = {
  from: 'news@digest.example',
  subject: 'Weekly newsletter digest',
  listUnsubscribe: '<mailto:u@digest.example>',
} as const;

/**
 * A temp directory with a Maildir of `messages` and `inbox.yaml` (the test workflow, plus
 * `extra` YAML) for tests that drive the CLI in child processes.
 */
export async function cliWorkspace(
  prefix: string,
  messages: MessageSpec[],
  extra = '',
): Promise<{ dir: string; maildir: string; workflowFile: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const maildir = path.join(dir, 'Maildir');
  await writeMaildir(maildir, messages);
  const workflowFile = path.join(dir, 'inbox.yaml');
  await fs.writeFile(workflowFile, workflowYaml(maildir, extra));
  return { dir, maildir, workflowFile };
}
