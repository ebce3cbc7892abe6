import { HandoffError } from '../errors/index.ts';

/**
 * Errors of agent handoffs. They extend the product's base error, whose constructor
 * sets `name` from `new.target.name`, so each subclass reports its own name.
 */
export class AgentHandoffError extends HandoffError {}

/** A handoff was configured wrongly (duplicate tool names, an unknown agent on resume, a bad state). */
export class HandoffConfigError extends AgentHandoffError {}

/** The model's arguments for a typed handoff did not match its `inputType`. */
export class HandoffInputError extends AgentHandoffError {
  constructor(
    message: string,
    readonly toolName: string,
    readonly issues: readonly unknown[],
  ) {
    super(message);
  }
}

/** A handoff's `onHandoff` callback threw. */
export class HandoffCallbackError extends AgentHandoffError {}

/** A run tried more handoffs than `maxHandoffs` allows. */
export class HandoffLimitError extends AgentHandoffError {}

/** A route found no enabled rule and no fallback for an intent. */
export class UnhandledIntentError extends AgentHandoffError {
  constructor(
    readonly route: string,
    readonly intent: unknown,
  ) {
    super(`route "${route}" has no enabled rule and no fallback for intent ${describeIntent(intent)}`);
  }
}

function describeIntent(intent: unknown): string {
  if (intent !== null && typeof intent === 'object' && 'kind' in intent)
    return `kind="${String(intent.kind)}"`;
  return JSON.stringify(intent) ?? String(intent);
}
