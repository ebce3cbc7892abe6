/**
 * What a run costs on AWS, from what bench/lambda-loop.ts measured and the list prices
 * below (us-east-1, on-demand, no free tier). Memory sizes are read from
 * lib/functions.ts (FUNCTION_SPECS) so the estimate follows the stack.
 */
import { readFile } from 'node:fs/promises';
import type { FunctionName, LoopResult } from './lambda-loop.ts';

/** us-east-1 list prices in USD, as assumed. */
export const PRICES = {
  lambda_gb_second_arm64: 0.0000133334,
  lambda_request: 0.2 / 1e6,
  dynamodb_write_request_unit: 0.625 / 1e6,
  dynamodb_read_request_unit: 0.125 / 1e6,
  eventbridge_custom_event: 1.0 / 1e6,
  scheduler_invocation: 1.0 / 1e6,
  sns_publish: 0.5 / 1e6,
  sns_email_delivery: 2.0 / 1e5,
  http_api_request: 1.0 / 1e6,
  secrets_manager_api_call: 0.05 / 1e4,
  kms_request: 0.03 / 1e4,
} as const;

export const PRICE_NOTES: Record<keyof typeof PRICES, string> = {
  lambda_gb_second_arm64: 'Lambda duration, arm64 (the stack uses Graviton), per GB-second',
  lambda_request: 'Lambda requests, $0.20 per million',
  dynamodb_write_request_unit:
    'DynamoDB on-demand, $0.625 per million write request units (Standard table class)',
  dynamodb_read_request_unit:
    'DynamoDB on-demand, $0.125 per million read request units (strongly consistent read = 1 RRU per 4 KB)',
  eventbridge_custom_event: 'EventBridge custom events, $1.00 per million (64 KB chunks)',
  scheduler_invocation: 'EventBridge Scheduler, $1.00 per million invocations (after 14 M free a month)',
  sns_publish: 'SNS standard topic publishes, $0.50 per million',
  sns_email_delivery: 'SNS email deliveries, $2.00 per 100,000 (one email subscriber assumed)',
  http_api_request: 'API Gateway HTTP API, $1.00 per million requests (first 300 M a month)',
  secrets_manager_api_call: 'Secrets Manager, $0.05 per 10,000 API calls (only on a cold start; not per run)',
  kms_request: 'KMS, $0.03 per 10,000 requests (Decrypt of the IMAP password; the key itself not counted)',
};

/** Fallback memory sizes (MB) if lib/functions.ts cannot be read. */
const DEFAULT_MEMORY: Record<FunctionName, number> = {
  trigger: 256,
  executor: 1024,
  completer: 256,
  resume: 1024,
  api: 512,
  'schedule-sync': 256,
  agent: 1024,
};

/** Each function's memory size as the stack configures it (lib/functions.ts), else the defaults. */
export async function memorySizes(
  file: string,
): Promise<{ sizes: Record<FunctionName, number>; from: string }> {
  try {
    const text = await readFile(file, 'utf8');
    const sizes = { ...DEFAULT_MEMORY };
    for (const name of Object.keys(sizes) as FunctionName[]) {
      const key = name.includes('-') ? `'${name}'` : name;
      const found = new RegExp(`\\n\\s*${key}: \\{[^}]*?memorySize: (\\d+)`).exec(text);
      if (!found) throw new Error(`no memorySize for ${name}`);
      sizes[name] = Number(found[1]);
    }
    return { sizes, from: 'lib/functions.ts' };
  } catch {
    return { sizes: DEFAULT_MEMORY, from: 'defaults (lib/functions.ts not readable)' };
  }
}

export interface CostLine {
  item: string;
  quantity: number;
  unit: string;
  usd: number;
}

/** The cost of `items` items processed in runs like `run` (scaled linearly). */
export function costFor(run: LoopResult, memory: Record<FunctionName, number>, items: number): CostLine[] {
  const k = items / run.items;
  const fns = Object.entries(run.functions) as [FunctionName, { invocations: number; ms: number }][];
  const gbSeconds = fns.reduce((sum, [fn, use]) => sum + (use.ms / 1000) * (memory[fn] / 1024), 0) * k;
  const invocations = fns.reduce((sum, [, use]) => sum + use.invocations, 0) * k;
  const wru = (run.dynamodb.wru + run.dynamodb.failed_conditions) * k;
  const rru = run.dynamodb.rru * k;
  const line = (item: string, quantity: number, unit: string, price: number): CostLine => ({
    item,
    quantity,
    unit,
    usd: quantity * price,
  });
  return [
    line('Lambda duration', gbSeconds, 'GB-s', PRICES.lambda_gb_second_arm64),
    line('Lambda requests', invocations, 'requests', PRICES.lambda_request),
    line('DynamoDB writes', wru, 'WRU', PRICES.dynamodb_write_request_unit),
    line('DynamoDB reads', rru, 'RRU', PRICES.dynamodb_read_request_unit),
    line('EventBridge events', run.eventbridge_events * k, 'events', PRICES.eventbridge_custom_event),
    line('Scheduler invocations', run.scheduler_invocations * k, 'invocations', PRICES.scheduler_invocation),
    line('SNS publishes', run.sns_publishes * k, 'publishes', PRICES.sns_publish),
    line('KMS decrypts', run.kms_decrypts * k, 'requests', PRICES.kms_request),
    line('SNS email deliveries', run.sns_publishes * k, 'emails', PRICES.sns_email_delivery),
    line('API Gateway requests', run.api_requests * k, 'requests', PRICES.http_api_request),
  ];
}
