/**
 * Counts the DynamoDB requests a client sends (as bench/lambda-loop.ts counts them): a
 * middleware records each request's command, the partition it names, the keys it reads by
 * (GetItem, BatchGetItem) and, for a Query, whether it reads by an id prefix.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** One request as sent. `keys`: `<pk>/<sk>` of each key it names (none for a Query or a write). */
export type SentRequest = {
  command: string;
  pk: string;
  keys?: string[];
  prefix?: boolean;
  limit?: number;
  /** The global index a Query reads, when it reads one. */
  index?: string;
};

/** The commands that only read. */
export const READ_COMMANDS: ReadonlySet<string> = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
]);

type Key = { pk?: { S?: string }; sk?: { S?: string } };

/** Adds to `client` a middleware that pushes every request it sends onto `sent`. */
export function recordRequests(client: DynamoDBClient, sent: SentRequest[]): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Key?: Key;
        Item?: { pk?: { S?: string } };
        RequestItems?: Record<string, { Keys?: Key[] }>;
        KeyConditionExpression?: string;
        ExpressionAttributeValues?: Record<string, { S?: string }>;
        Limit?: number;
        IndexName?: string;
      };
      const values = input.ExpressionAttributeValues ?? {};
      const pk = input.Key?.pk?.S ?? input.Item?.pk?.S ?? values[':pk']?.S ?? values[':g']?.S ?? '';
      const batch = Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []);
      if (input.Key) batch.push(input.Key);
      sent.push({
        command: context.commandName ?? '',
        pk,
        ...(batch.length > 0 ? { keys: batch.map((k) => `${k.pk?.S}/${k.sk?.S}`) } : {}),
        ...(input.KeyConditionExpression
          ? { prefix: /begins_with|BETWEEN/.test(input.KeyConditionExpression) }
          : {}),
        ...(input.Limit !== undefined ? { limit: input.Limit } : {}),
        ...(input.IndexName !== undefined ? { index: input.IndexName } : {}),
      });
      return next(args);
    },
    { step: 'serialize', name: 'countRequests' },
  );
}
