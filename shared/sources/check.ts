/**
 * `handoff sources check`: open a workflow's source, count what is there and read the first
 * few items, acting on nothing (no `perform`, no record written). The CLI command, the web
 * page's "Check source" button and the doctor are thin over `checkSource`.
 */
import type { Credentials } from '../credentials/credentials.ts';
import { errorMessage } from '../errors/index.ts';
import type { Workflow } from '../workflows/schema.ts';
import { openSource } from './open-source.ts';
import type { ItemSource } from './source.ts';

/** How many items a check reads when not told. */
export const DEFAULT_CHECK_LIMIT = 5;

/** One item as a check shows it. */
export interface CheckedItem {
  id: string;
  sender: string;
  subject: string;
  date: string | null;
}

/** What a check found: the count and the first items, or the one-line reason it could not look. */
export type SourceCheck =
  | {
      ok: true;
      workflow_id: string;
      source: Record<string, unknown>;
      count: number;
      items: CheckedItem[];
      /** Said when the count means something other than "in the source now" (event items). */
      note?: string;
    }
  | { ok: false; workflow_id: string; source: Record<string, unknown>; error: string };

/** Opens a workflow's source for reading; tests and hosts with credentials may pass their own. */
export type SourceOpener = (workflow: Workflow) => ItemSource;

/** An event source holds nothing between runs: its items arrive with each webhook. */
export const EVENT_NOTE = 'items arrive with a webhook (POST /hooks/<workflow id>); nothing is waiting here';

/** The source's settings a person may see: everything but values that look like secrets. */
export function publicSourceFields(source: Workflow['source']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !/pass|secret|token/i.test(key)));
}

/**
 * Connects to the workflow's source, lists its items and reads the first `limit` of them.
 * Never throws for a source that cannot be reached: the result says why, in one line.
 */
export async function checkSource(
  workflow: Workflow,
  options: { limit?: number; open?: SourceOpener; credentials?: Credentials } = {},
): Promise<SourceCheck> {
  const base = { workflow_id: workflow.id, source: publicSourceFields(workflow.source) };
  if (workflow.source.type === 'event') return { ok: true, ...base, count: 0, items: [], note: EVENT_NOTE };
  const limit = options.limit ?? DEFAULT_CHECK_LIMIT;
  let source: ItemSource | undefined;
  try {
    source = options.open ? options.open(workflow) : openForCheck(workflow, options.credentials);
    const refs = await source.listRefs();
    const items: CheckedItem[] = [];
    for (const ref of refs.slice(0, limit)) {
      const read = await source.read(ref);
      items.push(
        read.ok
          ? {
              id: read.item.id,
              sender: read.item.sender.address || read.item.sender.name,
              subject: read.item.subject,
              date: read.item.date,
            }
          : { id: ref, sender: '', subject: `(unreadable: ${read.reason})`, date: null },
      );
    }
    return { ok: true, ...base, count: refs.length, items };
  } catch (error) {
    return { ok: false, ...base, error: oneLine(errorMessage(error)) };
  } finally {
    await closeQuietly(source);
  }
}

/** A source opened outside any run: no stored event items, and no store, so no IMAP watermark moves. */
function openForCheck(workflow: Workflow, credentials: Credentials | undefined): ItemSource {
  return openSource(workflow, {
    run: { id: 'check', trigger: { kind: 'manual', detail: null } },
    ...(credentials ? { credentials } : {}),
  });
}

/** Ends a remote source's connection, if it holds one; a check's result does not hang on it. */
async function closeQuietly(source: ItemSource | undefined): Promise<void> {
  if (source && 'close' in source && typeof source.close === 'function')
    await Promise.resolve(source.close()).catch(() => undefined);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
