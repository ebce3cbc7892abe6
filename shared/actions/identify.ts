/**
 * Which item a message read from a source is. Ids are not unique in real mail (two
 * different messages may share a Message-ID), so the claim records the fingerprint of
 * the content it took, and a different content under a taken id gets `<id>#<fingerprint>`.
 * The first content to claim an id keeps it, so claims made before fingerprints stay valid.
 */
import { distinctId, type SourceItem } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import type { ItemOutcome } from '../records/outcomes.ts';
import { getOutcome, getOutcomes, takenByAnother } from './outcomes.ts';

export type Sighting =
  /** Not handled yet: the item to offer, under the id it is claimed by. */
  | { kind: 'new'; item: SourceItem }
  /** Already read in this pass, or claimed by an earlier run. */
  | { kind: 'handled' }
  /** A byte-identical copy of an item read in this pass: recorded as a duplicate, left alone. */
  | { kind: 'copy'; key: string; of: SourceItem };

/**
 * Places one item read from the source. `seen` holds the items already placed in this
 * pass, by claim id. Stable across runs: the same content always gets the same id. An
 * item held by this run, or released by a run that failed, is not taken. `known` holds
 * outcomes already read (see `knownOutcomes`); any other id is read here.
 */
export async function identify(
  store: Store,
  workflowId: string,
  runId: string,
  item: SourceItem,
  seen: ReadonlyMap<string, SourceItem>,
  known: ReadonlyMap<string, ItemOutcome | undefined> = new Map(),
): Promise<Sighting> {
  for (const id of [item.id, distinctId(item)]) {
    const earlier = seen.get(id);
    const outcome = earlier
      ? undefined
      : known.has(id)
        ? known.get(id)
        : await getOutcome(store, workflowId, id);
    const claimed = takenByAnother(outcome, runId) ? outcome : undefined;
    if (!earlier && !claimed) return { kind: 'new', item: { ...item, id } };
    const owner = earlier?.fingerprint ?? claimed?.fingerprint;
    // A claim from before fingerprints, or a source without them: the id alone decides.
    if (owner === undefined || item.fingerprint === undefined) return { kind: 'handled' };
    if (owner !== item.fingerprint) continue; // different content under this id
    if (!earlier || earlier.ref === item.ref) return { kind: 'handled' };
    const key = `duplicate:${item.ref.split('/').pop()}`;
    if (await getOutcome(store, workflowId, key)) return { kind: 'handled' };
    return { kind: 'copy', key, of: earlier };
  }
  return { kind: 'handled' }; // two different contents with one fingerprint: never acted twice
}

/**
 * The outcomes stored under the items' ids, read in one request where the store can, for
 * `identify` to place a page of items without a read each.
 */
export async function knownOutcomes(
  store: Store,
  workflowId: string,
  items: readonly SourceItem[],
): Promise<Map<string, ItemOutcome | undefined>> {
  return getOutcomes(store, workflowId, [...new Set(items.map((item) => item.id))]);
}
