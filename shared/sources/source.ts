import type { Store } from '../store/store.ts';

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
}

export type ReadResult = { ok: true; item: SourceItem } | { ok: false; ref: string; reason: string };

export interface ActionContext {
  store: Store;
  workflowId: string;
  runId: string;
  note: string | null;
  reasoning: string | null;
}

/** The port every source implements; actions are carried out only through `perform`. */
export interface ItemSource {
  /** Cheap references to every item currently in the source, in a stable order. */
  listRefs(): Promise<string[]>;
  read(ref: string): Promise<ReadResult>;
  /** Carries out one action on one item; returns a short description of what happened. */
  perform(action: string, item: SourceItem, context: ActionContext): Promise<string>;
}
