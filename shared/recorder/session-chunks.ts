import { HandoffError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import {
  READABLE_SESSION_VERSIONS,
  SESSIONS,
  SessionChunkSchema,
  SessionRecordSchema,
  type Session,
  type TraceEntry,
} from './trace.ts';

/** A session record written by a build this one cannot read. */
export class UnreadableSessionError extends HandoffError {}

/** The most chunks read at once when a session is read back. */
const READ_WINDOW = 16;

/** One stored piece of a session, v1 whole record or v2 chunk, as the reader and the appender need it. */
interface Piece {
  run_id: string;
  workflow_id: string;
  entries: TraceEntry[];
  dropped: number;
  /** Size of the session's kept entries up to and including this piece. */
  chars: number;
  at: string;
}

/** Where the next chunk of a session goes, and the budget used so far. */
export interface Tail {
  next: number;
  chars: number;
}

/** The size of an empty trace, as the budget counts it (`[]`). */
const EMPTY_CHARS = 2;

/** Where a session with no chunks yet ends. */
export const NEW_SESSION_TAIL: Readonly<Tail> = { next: 0, chars: EMPTY_CHARS };

/** The id of a session's chunk `seq`: the session's own id for the first, then `<id>#000001`, ... */
export function chunkId(sessionId: string, seq: number): string {
  return seq === 0 ? sessionId : `${sessionId}#${String(seq).padStart(6, '0')}`;
}

/**
 * A session (a run's own, or a side session such as a learner's) with its chunks
 * assembled in order, or undefined when nothing was recorded. Reads a session written
 * whole by an earlier build too; throws UnreadableSessionError for a newer one.
 */
export async function readSession(store: Store, sessionId: string): Promise<Session | undefined> {
  const first = await readPiece(store, sessionId, 0);
  if (!first) return undefined;
  const pieces = [first];
  // Chunks are created in order, so the first missing one ends the session.
  for (let width = 1; ; width = Math.min(width * 2, READ_WINDOW)) {
    const from = pieces.length;
    const read = await Promise.all(
      Array.from({ length: width }, (_, i) => readPiece(store, sessionId, from + i)),
    );
    const gap = read.indexOf(undefined);
    pieces.push(...(read.slice(0, gap < 0 ? width : gap) as Piece[]));
    if (gap >= 0) break;
  }
  return {
    id: sessionId,
    run_id: first.run_id,
    workflow_id: first.workflow_id,
    entries: pieces.flatMap((p) => p.entries),
    dropped: pieces.reduce((n, p) => n + p.dropped, 0),
    updated_at: pieces.at(-1)!.at,
  };
}

/**
 * Where a session's next chunk goes, found without reading every chunk: it doubles its
 * step until a chunk is missing, then halves the gap (chunks exist as an unbroken prefix).
 */
export async function findTail(store: Store, sessionId: string): Promise<Tail> {
  const first = await readPiece(store, sessionId, 0);
  if (!first) return { ...NEW_SESSION_TAIL };
  let last = { seq: 0, piece: first };
  let missing = 0;
  for (let step = 1; missing === 0; step *= 2) {
    const piece = await readPiece(store, sessionId, last.seq + step);
    if (piece) last = { seq: last.seq + step, piece };
    else missing = last.seq + step;
  }
  while (missing - last.seq > 1) {
    const mid = Math.floor((last.seq + missing) / 2);
    const piece = await readPiece(store, sessionId, mid);
    if (piece) last = { seq: mid, piece };
    else missing = mid;
  }
  return tailAfter(last.seq, last.piece);
}

/** The tail after chunks another process appended from `tail.next` on (none: the same tail). */
export async function catchUp(store: Store, sessionId: string, tail: Tail): Promise<Tail> {
  let current = tail;
  for (;;) {
    const piece = await readPiece(store, sessionId, current.next);
    if (!piece) return current;
    current = tailAfter(current.next, piece);
  }
}

function tailAfter(seq: number, piece: Piece): Tail {
  return { next: seq + 1, chars: piece.chars };
}

/** Chunk `seq` of a session, whichever version wrote it; undefined when it does not exist. */
async function readPiece(store: Store, sessionId: string, seq: number): Promise<Piece | undefined> {
  const id = chunkId(sessionId, seq);
  const raw = await store.get(SESSIONS, id);
  if (raw === undefined) return undefined;
  const version = raw.schema_version;
  if (typeof version === 'number' && !READABLE_SESSION_VERSIONS.includes(version))
    throw new UnreadableSessionError(
      `the trace ${sessionId} was written as v${version}; this build reads v${READABLE_SESSION_VERSIONS.join(', v')}`,
    );
  if (version === 2) return parseRecord(SessionChunkSchema, SESSIONS, raw);
  // v1: the whole trace in the session's own record, as earlier builds wrote it.
  const whole = parseRecord(SessionRecordSchema, SESSIONS, raw);
  return { ...whole, chars: JSON.stringify(whole.entries).length, at: whole.updated_at };
}
