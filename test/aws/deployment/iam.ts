/**
 * IAM's decision for one call, from a role's identity policy as the template gives it: an
 * explicit Deny wins, else an Allow whose action, resource and conditions all match, else
 * refused. Covers what the stack's policies use (wildcards, StringEquals/Like, ArnEquals/Like, Bool);
 * any other condition operator throws rather than guess (fails closed). And the calls a
 * DynamoDB request is authorised as (a transaction: one per item).
 */
import { ACCOUNT, REGION, type Statement } from './template.ts';

/** One AWS call as IAM authorises it: the action and the resource it names. */
export interface Call {
  action: string;
  resource: string;
}

function glob(pattern: string, value: string, caseless: boolean): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, caseless ? 'i' : '').test(value);
}

const OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (p, v) => p === v,
  StringLike: (p, v) => glob(p, v, false),
  ArnEquals: (p, v) => p === v,
  ArnLike: (p, v) => glob(p, v, false),
  Bool: (p, v) => p.toLowerCase() === v.toLowerCase(),
};

function conditionsHold(condition: Statement['Condition'], context: Record<string, string>): boolean {
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    const test = OPERATORS[operator];
    if (!test) throw new Error(`condition operator ${operator} is not evaluated by this harness`);
    for (const [key, expected] of Object.entries(keys)) {
      const value = context[key];
      const patterns = Array.isArray(expected) ? expected : [expected];
      if (value === undefined || !patterns.some((p) => test(p, value))) return false;
    }
  }
  return true;
}

function matches(s: Statement, call: Call, context: Record<string, string>): boolean {
  return (
    s.Action.some((a) => glob(a, call.action, true)) &&
    s.Resource.some((r) => glob(r, call.resource, false)) &&
    conditionsHold(s.Condition, context)
  );
}

/** Whether `statements` allow `call` (explicit Deny first). */
export function allows(
  statements: readonly Statement[],
  call: Call,
  context: Record<string, string>,
): boolean {
  if (statements.some((s) => s.Effect === 'Deny' && matches(s, call, context))) return false;
  return statements.some((s) => s.Effect === 'Allow' && matches(s, call, context));
}

/** The IAM calls one DynamoDB request is authorised as (a transaction: one per item). */
export function dynamoCalls(operation: string, input: Record<string, unknown>): Call[] {
  const arn = (table: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${table}`;
  const onTable = (table: unknown, index?: unknown) =>
    `${arn(String(table))}${index ? `/index/${String(index)}` : ''}`;
  switch (operation) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems as object).map((t) => ({
        action: `dynamodb:${operation}`,
        resource: arn(t),
      }));
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, { TableName: string }>[]).map((item) => {
        const [kind, detail] = Object.entries(item)[0]!;
        const action = {
          Put: 'PutItem',
          Update: 'UpdateItem',
          Delete: 'DeleteItem',
          ConditionCheck: 'ConditionCheckItem',
        }[kind];
        return { action: `dynamodb:${action}`, resource: arn(detail.TableName) };
      });
    case 'TransactGetItems':
      return (input.TransactItems as { Get: { TableName: string } }[]).map((i) => ({
        action: 'dynamodb:GetItem',
        resource: arn(i.Get.TableName),
      }));
    default:
      return [{ action: `dynamodb:${operation}`, resource: onTable(input.TableName, input.IndexName) }];
  }
}
