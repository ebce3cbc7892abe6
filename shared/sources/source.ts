import { HandoffError } from '../errors/index.ts';
import type { Store, Write } from '../store/store.ts';
import type { Produced } from '../artifacts/artifacts.ts';
import type { Words } from '../actions/words.ts';

/**
 * The source cannot be reached (say an IMAP connection dropped): nothing is known to have
 * been done. The item's claim is released, not settled, and the run step fails, so the
 * next run takes the item again; an action whose reply was lost finds the item gone then.
 */
export class SourceUnavailableError extends HandoffError {}

/** One thing a workflow may act on (a mail message, for the Maildir source). */
export interface SourceItem {
  id: string;
  /** Where the source finds it again (a file path for Maildir). */
  ref: string;
  sender: { address: string; name: string };
  to: string[];
  subject: string;
  text: string;
  date: string | null;
  /** Facts a classifier may use: `list-unsubscribe`, `reply`, ... */
  hints: string[];
  /**
   * A short hash of the item's content. Two items with the same id and different
   * fingerprints are different items (see `distinctId`); the same fingerprint is one item.
   */
  fingerprint?: string;
  /** Values an integration's argument template may name as `{{item.<key>}}` (event items). */
  fields?: Record<string, string | number>;
}

/**
 * The id of an item whose own id already belongs to different content:
 * `<id>#<fingerprint>` (a Message-ID shared by two different messages, say).
 */
export function distinctId(item: SourceItem): string {
  return item.fingerprint === undefined ? item.id : `${item.id}#${item.fingerprint}`;
}

/** Splits an item id into the source's own id and, for a `distinctId`, the fingerprint. */
export function splitItemId(itemId: string): { id: string; fingerprint: string | null } {
  const m = /^(.*>)#([0-9a-f]{12})$/.exec(itemId);
  return m ? { id: m[1]!, fingerprint: m[2]! } : { id: itemId, fingerprint: null };
}

/** A read item, or why not; `gone`: it left the source since it was listed (not an unparseable item). */
export type ReadResult =
  { ok: true; item: SourceItem } | { ok: false; ref: string; reason: string; gone?: boolean };

export interface ActionContext {
  store: Store;
  workflowId: string;
  runId: string;
  /** Teaches the next run; never part of anything the action writes. */
  note: string | null;
  reasoning: string | null;
  /** The words the action carries (a reply's body, a ticket's title and body), as approved. */
  words?: Words | undefined;
  /** Told what the action made (a draft, a ticket), so the run records it as an artifact. */
  produced?: (artifact: Produced) => void;
  /**
   * Given, a store write the action makes (a ticket) is handed here and committed with the
   * batch's audit entries, in the batch's one durable record write, instead of on its own.
   */
  stage?: (write: Write) => void;
}

/** One action for one item, as `performMany` takes them. */
export interface ActRequest {
  action: string;
  item: SourceItem;
  context: ActionContext;
}

/** What became of one request of `performMany`: what happened, or why not (as `perform` throws). */
export type ActResult = { ok: true; detail: string } | { ok: false; error: unknown };

/** The port every source implements; actions are carried out only through `perform` or `performMany`. */
export interface ItemSource {
  /** Cheap references to every item currently in the source, in a stable order. */
  listRefs(): Promise<string[]>;
  read(ref: string): Promise<ReadResult>;
  /** Carries out one action on one item; returns a short description of what happened. */
  perform(action: string, item: SourceItem, context: ActionContext): Promise<string>;
  /**
   * Carries out many actions in as few round trips as the source can (IMAP: one MOVE per
   * target folder); results in the requests' order. A request whose item cannot be
   * reached (the connection dropped) gets a `SourceUnavailableError`: nothing known done.
   */
  performMany?(requests: readonly ActRequest[]): Promise<ActResult[]>;
  /**
   * How many decided items the engine may gather before carrying them out together
   * (through `performMany`); 1 or undefined: each is carried out as it is decided.
   */
  readonly actBatch?: number | undefined;
  /**
   * The actions this source carries out from an item's ref alone (Maildir: its moves): an
   * item set aside before a pause is not read again to carry one of them out.
   */
  readonly actsByRef?: ReadonlySet<string> | undefined;
  /** Reads many refs in one go (one round trip for a remote source); results in the refs' order. */
  readMany?(refs: readonly string[]): Promise<ReadResult[]>;
  /**
   * Whether anything may be new since the last completed run, when the source can tell
   * cheaply (IMAP: one STATUS). Undefined: the engine reads the items to find out.
   */
  mayHaveNew?(): Promise<boolean>;
  /** Remembers what this run saw, so the next `mayHaveNew` can answer; called when a run completes. */
  markSeen?(): Promise<void>;
  /**
   * The words an action of this source would carry for the item when they come from its own
   * arguments (an integration's message): shown and editable before it is carried out.
   */
  wordsFor?(action: string, item: SourceItem, context: ActionContext): Words | null;
  /** Ends the source's connection, if it holds one. */
  close?(): Promise<void>;
}

/**
 * Reads refs in order: `size` at a time through `readMany` when the source has it (one round
 * trip per batch), else one by one, so a caller that stops early reads no more than it needs.
 */
export async function* readInBatches(
  source: ItemSource,
  refs: readonly string[],
  size: number,
  first = size,
): AsyncGenerator<ReadResult> {
  if (!source.readMany) {
    for (const ref of refs) yield await source.read(ref);
    return;
  }
  for (let i = 0, n = first; i < refs.length; i += n, n = size)
    yield* await source.readMany(refs.slice(i, i + n));
}

/** Carries out requests with `performMany` when the source has it, else one `perform` at a time. */
export async function performAll(source: ItemSource, requests: readonly ActRequest[]): Promise<ActResult[]> {
  if (requests.length === 0) return [];
  if (source.performMany) {
    try {
      return await source.performMany(requests);
    } catch (error) {
      return requests.map(() => ({ ok: false as const, error })); // what it did, it did not say
    }
  }
  const results: ActResult[] = [];
  let lost: SourceUnavailableError | null = null;
  for (const { action, item, context } of requests) {
    if (lost) {
      results.push({ ok: false, error: lost }); // the source went away: the rest is not tried
      continue;
    }
    try {
      results.push({ ok: true, detail: await source.perform(action, item, context) });
    } catch (error) {
      if (error instanceof SourceUnavailableError) lost = error;
      results.push({ ok: false, error });
    }
  }
  return results;
}
