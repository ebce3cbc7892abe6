/**
 * Counts what a DynamoDB client asks of the table, for bench:history: read and write
 * requests, the items the reads returned (every one is paid for), and where the run's first
 * item began (its first request on the outcomes partitions: the claims of its first page).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand']);

/** One request: read or write, the items it read, whether it touched the outcomes. */
interface Counted {
  read: boolean;
  items: number;
  outcomes: boolean;
}

export interface RequestTally {
  reads: number;
  writes: number;
  items_read: number;
}

/** A counter on `client`: `reset` before an operation, `tally` after it. */
export class RequestCounter {
  private sent: Counted[] = [];

  constructor(client: DynamoDBClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        const result = await next(args);
        const out = result.output as {
          Items?: unknown[];
          Item?: unknown;
          Responses?: Record<string, unknown[]>;
        };
        const items =
          (out.Items?.length ?? 0) +
          (out.Item ? 1 : 0) +
          Object.values(out.Responses ?? {}).reduce((n, r) => n + r.length, 0);
        this.sent.push({
          read: READS.has(command),
          items,
          outcomes: JSON.stringify(args.input).includes('#outcomes'),
        });
        return result;
      },
      { step: 'initialize', name: 'historyBenchCounter' },
    );
  }

  reset(): void {
    this.sent = [];
  }

  /** What was sent since the last reset. */
  tally(): RequestTally {
    return tallyOf(this.sent);
  }

  /** What was sent since the last reset and before the first request on the outcomes (a run's first item). */
  beforeFirstItem(): RequestTally {
    const first = this.sent.findIndex((r) => r.outcomes);
    return tallyOf(first === -1 ? this.sent : this.sent.slice(0, first));
  }
}

function tallyOf(sent: readonly Counted[]): RequestTally {
  return {
    reads: sent.filter((r) => r.read).length,
    writes: sent.filter((r) => !r.read).length,
    items_read: sent.reduce((n, r) => n + r.items, 0),
  };
}
