import { configureLogging, type Logger } from '@strands-agents/sdk';
import { log, type Log } from './log.ts';
import { isError } from '../errors/index.ts';

/**
 * The agent SDK's logger, writing into the product's log at debug level. Every failure
 * the SDK logs also reaches the product as an error or a failed result, which the
 * product reports once; the SDK's own lines are diagnostics (HANDOFF_DEBUG shows them).
 */
export function sdkLogger(target: Log = log): Logger {
  const write = (...args: unknown[]) => target.debug(`sdk: ${args.map(describe).join(' ')}`);
  return { debug: write, info: write, warn: write, error: write };
}

/** Routes the agent SDK's logging through the product's log (idempotent). */
export function routeSdkLogging(target: Log = log): void {
  configureLogging(sdkLogger(target));
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isError(value)) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
