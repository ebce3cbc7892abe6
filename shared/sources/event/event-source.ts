import { InvalidInputError } from '../../errors/index.ts';
import { fileTicketFor } from '../tickets.ts';
import type { ActionContext, ItemSource, ReadResult, SourceItem } from '../source.ts';
import { storedItems, type EventItem } from './event-items.ts';

function toSourceItem(item: EventItem): SourceItem {
  return {
    id: item.id,
    ref: item.id,
    sender: { address: item.sender ?? '', name: item.sender_name ?? item.sender ?? '' },
    to: [],
    subject: item.subject,
    text: item.text,
    date: item.date ?? null,
    hints: item.hints,
    fields: item.fields,
  };
}

/**
 * The items a webhook carried, as the run stored them (its trigger's detail): every process
 * that prepares the run, here or on another host, reads the same items. The source changes
 * nothing outside Handoff: other actions are integration tools (`github__...`), through the gate.
 */
export class EventSource implements ItemSource {
  private readonly items: Map<string, EventItem>;

  /** `detail` is the run's stored trigger detail (`{"items": [...]}`); null for a run with none. */
  constructor(detail: string | null) {
    this.items = new Map(storedItems(detail).map((item) => [item.id, item]));
  }

  listRefs(): Promise<string[]> {
    return Promise.resolve([...this.items.keys()]);
  }

  read(ref: string): Promise<ReadResult> {
    const item = this.items.get(ref);
    return Promise.resolve(
      item ? { ok: true, item: toSourceItem(item) } : { ok: false, ref, reason: 'not among the event items' },
    );
  }

  async perform(action: string, item: SourceItem, context: ActionContext): Promise<string> {
    if (action !== 'file_ticket')
      throw new InvalidInputError(
        `the event source cannot ${action}; name an integration's tool (<entry>__<tool>) instead`,
      );
    return fileTicketFor(item, context);
  }
}
