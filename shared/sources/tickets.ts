/**
 * `file_ticket`, the one action every source carries out the same way: a record in the
 * store's `tickets` collection, made from the item.
 */
import { randomBytes } from 'node:crypto';
import { InvalidInputError, RecordExistsError } from '../errors/index.ts';
import type { JsonRecord, Store, Versioned } from '../store/store.ts';
import type { ActionContext, SourceItem } from './source.ts';
import { ticketWords } from '../actions/words.ts';

export interface TicketInput {
  workflowId: string;
  runId: string;
  itemId: string;
  title: string;
  body: string;
}

/** A ticket as it is written, before the store gives it a version. */
export type NewTicket = JsonRecord & {
  workflow_id: string;
  run_id: string;
  item_id: string;
  title: string;
  body: string;
  created_at: string;
};

export type TicketRecord = Versioned<NewTicket>;

/** Creates a ticket (`tkt_<random>`) in the store's 'tickets' collection and returns it. */
export async function fileTicket(store: Store, ticket: TicketInput): Promise<TicketRecord> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await store.create('tickets', ticketRecord(ticket));
    } catch (err) {
      if (!(err instanceof RecordExistsError) || attempt >= 3) throw err;
    }
  }
}

/** A new ticket record (`tkt_<random>`, not yet stored); an empty title is refused. */
export function ticketRecord(ticket: TicketInput): NewTicket {
  const title = ticket.title.replace(/\s+/g, ' ').trim();
  if (title === '') throw new InvalidInputError('ticket title must not be empty');
  return {
    id: `tkt_${randomBytes(5).toString('hex')}`,
    workflow_id: ticket.workflowId,
    run_id: ticket.runId,
    item_id: ticket.itemId,
    title: title.slice(0, 200),
    body: ticket.body,
    created_at: new Date().toISOString(),
  };
}

/**
 * Files a ticket for one item (the approved words, else its subject and the start of its text); says what was done.
 * With `context.stage` the ticket is handed over to be committed with the batch's record
 * (one durable write per batch); else it is created at once.
 */
export async function fileTicketFor(item: SourceItem, context: ActionContext): Promise<string> {
  const words = context.words?.action === 'file_ticket' ? context.words : ticketWords(item);
  const input = {
    workflowId: context.workflowId,
    runId: context.runId,
    itemId: item.id,
    title: words.title ?? (item.subject || '(no subject)'),
    body: words.body,
  };
  let ticket: NewTicket;
  if (context.stage) {
    ticket = ticketRecord(input);
    context.stage({ kind: 'create', collection: 'tickets', record: ticket });
  } else ticket = await fileTicket(context.store, input);
  context.produced?.({
    kind: 'ticket',
    title: ticket.title,
    contentType: 'text/plain; charset=utf-8',
    body: `${ticket.title}\n\n${ticket.body}`,
    pointer: `tickets/${ticket.id}`,
  });
  return `ticket ${ticket.id} filed`;
}
