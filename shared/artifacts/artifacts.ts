/**
 * Artifacts: what runs produce (drafts, digests, tickets, reports), one record each in the
 * `artifacts` collection, with where it came from (workflow, run, item, decision).
 *
 * Ids are `<run id>.<kind>-<12 hex>` (the digest: `<run id>.digest`): stable for a retry
 * of the same thing, and prefixed by the run, so one run's artifacts are one keyed read
 * (`listByIdPrefix`; DynamoDB: a Query of the prefix's sort-key range), never a scan.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError } from '../errors/index.ts';
import { getRecord, parseRecord } from '../store/records.ts';
import { listByIdPrefix, type Store, type Write } from '../store/store.ts';

export const ARTIFACT_KINDS = ['draft', 'digest', 'ticket', 'report'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** The content types an artifact may have: text a browser shows as text, never runs. */
export const ARTIFACT_CONTENT_TYPES = [
  'text/plain; charset=utf-8',
  'text/markdown; charset=utf-8',
  'message/rfc822',
  'application/json',
] as const;
export type ArtifactContentType = (typeof ARTIFACT_CONTENT_TYPES)[number];

/** Bodies above this are not copied into the record: the pointer says where the thing is. */
export const MAX_INLINE_BODY_BYTES = 64 * 1024;

export const ArtifactSchema = z.object({
  id: z.string(),
  version: z.number().int().optional(),
  schemaVersion: z.literal(1),
  kind: z.enum(ARTIFACT_KINDS),
  title: z.string(),
  content_type: z.enum(ARTIFACT_CONTENT_TYPES),
  /** The content itself, when it is small enough to keep here. */
  body: z.string().nullable(),
  /** Where the thing lives (a file, a mailbox folder, a ticket record), when it lives elsewhere too. */
  pointer: z.string().nullable(),
  /** Bytes of the content (UTF-8). */
  size: z.number().int().nonnegative(),
  created_at: z.string(),
  workflow_id: z.string(),
  run_id: z.string(),
  item_id: z.string().nullable(),
  /** The decision a person answered, when a person decided the item. */
  decision_id: z.string().nullable(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

/** What an action or the completer produced, before it is stamped with its provenance. */
export interface Produced {
  kind: ArtifactKind;
  title: string;
  contentType: ArtifactContentType;
  /** The content; kept in the record when at most MAX_INLINE_BODY_BYTES. */
  body: string;
  pointer?: string | null;
}

/** Where an artifact came from. */
export interface Provenance {
  workflowId: string;
  runId: string;
  itemId: string | null;
  decisionId: string | null;
}

/** The id of an artifact: the run's prefix, then a digest of what it is about. */
export function artifactId(runId: string, kind: ArtifactKind, itemId: string | null): string {
  if (itemId === null) return `${runId}.${kind}`;
  return `${runId}.${kind}-${createHash('sha256').update(itemId).digest('hex').slice(0, 12)}`;
}

/** The record for what was produced; the body is left out (pointer only) when it is too large. */
export function artifactOf(produced: Produced, from: Provenance, at = new Date()): Artifact {
  const size = Buffer.byteLength(produced.body, 'utf8');
  return ArtifactSchema.parse({
    id: artifactId(from.runId, produced.kind, from.itemId),
    schemaVersion: 1,
    kind: produced.kind,
    title: produced.title.replace(/\s+/g, ' ').trim().slice(0, 200) || `(untitled ${produced.kind})`,
    content_type: produced.contentType,
    body: size <= MAX_INLINE_BODY_BYTES ? produced.body : null,
    pointer: produced.pointer ?? null,
    size,
    created_at: at.toISOString(),
    workflow_id: from.workflowId,
    run_id: from.runId,
    item_id: from.itemId,
    decision_id: from.decisionId,
  });
}

/**
 * The write that records an artifact, for a `commit` with the run's other writes. A put:
 * the id is stable, so a step that is run again records the same artifact once.
 */
export function artifactWrite(artifact: Artifact): Write {
  return { kind: 'put', collection: 'artifacts', record: artifact };
}

/** Records one artifact on its own (the completer's digest). */
export async function saveArtifact(store: Store, artifact: Artifact): Promise<Artifact> {
  await store.put('artifacts', artifact);
  return artifact;
}

/** One artifact, or NotFoundError. */
export async function getArtifact(store: Store, id: string): Promise<Artifact> {
  const artifact = await getRecord(store, 'artifacts', ArtifactSchema, id);
  if (!artifact) throw new NotFoundError(`no artifact "${id}" (see \`handoff artifacts\`)`);
  return artifact;
}

/**
 * One run's artifacts (a keyed read by the run's id prefix), newest first. The workspace's
 * are read a page at a time: `pageOfArtifacts` (artifact-list.ts).
 */
export async function listArtifacts(store: Store, filter: { runId: string }): Promise<Artifact[]> {
  return (await listByIdPrefix(store, 'artifacts', `${filter.runId}.`))
    .map((r) => parseRecord(ArtifactSchema, 'artifacts', r))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
}

/** What the API and `--json` show of an artifact in a list: everything but the body. */
export function artifactSummary(a: Artifact): Omit<Artifact, 'body' | 'version'> & { has_body: boolean } {
  const { body, version: _version, ...rest } = a;
  return { ...rest, has_body: body !== null };
}

/** A file name for the download: the kind, the id's tail, and an extension for the type. */
export function downloadName(a: Artifact): string {
  const ext = {
    'text/plain; charset=utf-8': 'txt',
    'text/markdown; charset=utf-8': 'md',
    'message/rfc822': 'eml',
    'application/json': 'json',
  }[a.content_type];
  return `${a.id.replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}`;
}

/** A reply draft as an artifact: the message as written, and where it was saved. */
export function draftArtifact(item: { subject: string }, text: string, pointer: string): Produced {
  const subject = item.subject.trim();
  return {
    kind: 'draft',
    title: /^re:/i.test(subject) ? subject : `Re: ${subject || '(no subject)'}`,
    contentType: 'message/rfc822',
    body: text,
    pointer,
  };
}
