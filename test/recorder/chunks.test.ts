import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { SessionBatch } from '../../shared/recorder/recorder.ts';
import { chunkId } from '../../shared/recorder/session-chunks.ts';
import { readSession, StoreSessionSink } from '../../shared/recorder/store-sink.ts';
import { OMITTED, SESSIONS, type Session, type ToolEntry } from '../../shared/recorder/trace.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { loggingStore, type StoreCall } from './helpers.ts';

const execFileAsync = promisify(execFile);
const appender = fileURLToPath(new URL('./fixtures/append-process.ts', import.meta.url));
const repo = path.resolve(path.dirname(appender), '../../..');

function toolCall(n: number | string, payload = 'x'): ToolEntry {
  return {
    kind: 'tool',
    at: '2026-03-10T09:00:01.000Z',
    node: 'executor',
    tool: 'submit_action',
    tool_use_id: `t${n}`,
    input: payload,
    output: payload,
    status: 'success',
    ms: 1,
  };
}

const batch = (entries: SessionBatch['entries']): SessionBatch => ({
  runId: 'run_1',
  workflowId: 'inbox',
  entries,
});

const ids = (session: Session | undefined) => session!.entries.map((e) => (e as ToolEntry).tool_use_id);
const sessionWrites = (calls: StoreCall[]) =>
  calls.filter((c) => c.collection === SESSIONS && c.op !== 'get' && c.op !== 'list');
const sessionGets = (calls: StoreCall[]) =>
  calls.filter((c) => c.collection === SESSIONS && c.op === 'get').length;

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let client: DynamoDBClient;
beforeAll(async () => {
  dynalite = await startDynalite();
  client = dynaliteClient(dynalite.endpoint);
});
afterAll(async () => {
  client.destroy();
  await dynalite.stop();
});

/** A fresh store of one backend, and how a child process names the same store. */
type Backend = { store: Store; target: string; cleanup(): Promise<void> };
const backends: [string, () => Promise<Backend>][] = [
  [
    'JSON files',
    async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-chunks-'));
      return { store: new JsonFileStore(dir), target: dir, cleanup: () => fs.rm(dir, { recursive: true }) };
    },
  ],
  [
    'DynamoDB',
    async () => {
      const table = `sessions-${randomUUID()}`;
      await ensureTable(client, table);
      const store = new DynamoDbStore(createDocumentClient(client), table);
      return { store, target: `${dynalite.endpoint}#${table}`, cleanup: async () => {} };
    },
  ],
];

describe.each(backends)('a session on %s', (_name, open) => {
  let backend: Backend;
  beforeEach(async () => {
    backend = await open();
  });
  afterEach(() => backend.cleanup());

  it('writes each batch as one new chunk: one create, no update, no record written twice', async () => {
    const { store, calls } = loggingStore(backend.store);
    const sink = new StoreSessionSink(store);
    for (let i = 0; i < 12; i++) await sink.append(batch([toolCall(2 * i), toolCall(2 * i + 1)]));

    const writes = sessionWrites(calls);
    expect(writes.map((c) => c.op)).toEqual(Array(12).fill('create'));
    expect(new Set(writes.map((c) => c.id)).size).toBe(12);
    // The running size is kept in the process: only the first batch looks at what is stored.
    expect(sessionGets(calls)).toBe(1);
    expect(ids(await readSession(backend.store, 'run_1'))).toEqual(
      Array.from({ length: 24 }, (_, i) => `t${i}`),
    );
  });

  it('reads a session the previous build wrote whole, and appends after it without rewriting it', async () => {
    const whole = {
      id: 'run_1',
      schema_version: 1,
      run_id: 'run_1',
      workflow_id: 'inbox',
      entries: [toolCall(1), toolCall(2)],
      dropped: 3,
      updated_at: '2026-03-10T09:00:02.000Z',
    };
    await backend.store.create(SESSIONS, whole);
    expect(await readSession(backend.store, 'run_1')).toMatchObject({
      run_id: 'run_1',
      workflow_id: 'inbox',
      entries: whole.entries,
      dropped: 3,
    });

    await new StoreSessionSink(backend.store).append(batch([toolCall(3)]));
    const session = await readSession(backend.store, 'run_1');
    expect(ids(session)).toEqual(['t1', 't2', 't3']);
    expect(session!.dropped).toBe(3);
    expect(await backend.store.get(SESSIONS, 'run_1')).toEqual({ ...whole, version: 1 });
  });

  it('names a trace a newer build wrote instead of misreading it, and appends nothing to it', async () => {
    const newer = { id: 'run_1', schema_version: 3, run_id: 'run_1', workflow_id: 'inbox', parts: [] };
    await backend.store.create(SESSIONS, newer);
    await expect(readSession(backend.store, 'run_1')).rejects.toThrow(
      'the trace run_1 was written as v3; this build reads v1, v2',
    );
    await expect(new StoreSessionSink(backend.store).append(batch([toolCall(1)]))).rejects.toThrow('v3');
    expect(await backend.store.list(SESSIONS)).toEqual([{ ...newer, version: 1 }]);
  });

  it('finds where the session ends in another process by reading a few chunks, not all of them', async () => {
    const first = new StoreSessionSink(backend.store);
    for (let i = 0; i < 40; i++) await first.append(batch([toolCall(i)]));

    const { store, calls } = loggingStore(backend.store);
    await new StoreSessionSink(store).append(batch([toolCall(40)]));
    expect(sessionWrites(calls)).toEqual([{ op: 'create', collection: SESSIONS, id: chunkId('run_1', 40) }]);
    expect(sessionGets(calls)).toBeLessThanOrEqual(13); // 2·log2(41), where reading all would be 41
    expect(ids(await readSession(backend.store, 'run_1'))).toEqual(
      Array.from({ length: 41 }, (_, i) => `t${i}`),
    );
  });

  it('keeps the budget across chunks: payloads omitted, then steps only counted, each batch still one create', async () => {
    const { store, calls } = loggingStore(backend.store);
    const sink = new StoreSessionSink(store, 3_000);
    for (let i = 0; i < 30; i++) await sink.append(batch([toolCall(i, 'y'.repeat(300))]));
    // Another process carries on the count where this one stopped.
    await new StoreSessionSink(backend.store, 3_000).append(batch([toolCall(30, 'y'.repeat(300))]));

    const session = (await readSession(backend.store, 'run_1'))!;
    expect(session.entries.length + session.dropped).toBe(31);
    expect(session.dropped).toBeGreaterThan(10);
    expect((session.entries as ToolEntry[]).some((t) => t.output === OMITTED)).toBe(true);
    expect(JSON.stringify(session.entries).length).toBeLessThan(3_000);
    expect(sessionWrites(calls).map((c) => c.op)).toEqual(Array(30).fill('create'));
  });

  it("splits a batch bigger than a chunk, each chunk far under DynamoDB's 400 KB item cap", async () => {
    const wide = '漢'.repeat(2_500); // 3 bytes a character: 15 KB an entry, 750 KB the batch
    await new StoreSessionSink(backend.store).append(
      batch(Array.from({ length: 50 }, (_, i) => toolCall(i, wide))),
    );

    const stored = await backend.store.list(SESSIONS);
    expect(stored.length).toBeGreaterThanOrEqual(8);
    for (const record of stored) expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(150_000);
    const session = (await readSession(backend.store, 'run_1'))!;
    expect(ids(session)).toEqual(Array.from({ length: 50 }, (_, i) => `t${i}`));
    expect((session.entries as ToolEntry[]).every((t) => t.output === wide)).toBe(true);
  });

  it('lands every batch of two processes appending at once, each writer in its own order', async () => {
    const barrier = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-barrier-'));
    const count = 30;
    const outputs = await Promise.all(
      ['a', 'b'].map((writer) =>
        execFileAsync(
          process.execPath,
          ['--import', 'tsx', appender, backend.target, barrier, writer, 'a,b', String(count)],
          { cwd: repo },
        ),
      ),
    );
    await fs.rm(barrier, { recursive: true });

    const landed = ids(await readSession(backend.store, 'run_1'));
    expect(landed).toHaveLength(4 * count);
    for (const writer of ['a', 'b'])
      expect(landed.filter((id) => id.startsWith(`${writer}-`))).toEqual(
        Array.from({ length: count }, (_, i) => [`${writer}-${i}-0`, `${writer}-${i}-1`]).flat(),
      );
    // Each batch is one chunk, created once and never rewritten.
    const stored = await backend.store.list(SESSIONS);
    expect(stored).toHaveLength(2 * count);
    expect(stored.every((r) => r.version === 1)).toBe(true);
    // The writers raced: their chunks interleave, and creates lost to the other were retried after it.
    const switches = landed.filter((id, i) => i > 0 && id[0] !== landed[i - 1]![0]).length;
    expect(switches).toBeGreaterThan(1);
    const lost = outputs.map((o) => (JSON.parse(o.stdout.trim()) as { lost: number }).lost);
    expect(lost.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
