import type { Agent, JSONSchema } from '@strands-agents/sdk';
import { z } from 'zod';
import { HandoffConfigError } from './errors.ts';
import type { HandoffInputData } from './input-data.ts';
import type { RunItem } from './items.ts';

const NO_ARGUMENTS: JSONSchema = { type: 'object', properties: {} };

export type Awaitable<T> = T | Promise<T>;

/** What callbacks receive as `ctx`: the caller's context and the run so far. */
export interface HandoffRunContext<C = unknown> {
  /** The `context` passed to `runWithHandoffs` (or `resumeWithHandoffs`). */
  readonly context: C;
  /** Items of the agents that have finished their part of the run. */
  readonly newItems: readonly RunItem[];
  /** Handoffs made so far in this run. */
  readonly handoffCount: number;
}

/**
 * How much history the target receives and what happens when interception fails.
 * `budget`: at most this many tokens of prior history (estimated as characters / 4).
 * `collapse`: render the forwarded history into one message (see docs/handoffs.md).
 * `onError`: `'raise'` makes `runWithHandoffs` throw; `'rejectWithMessage'` turns the
 * transfer into an error tool result the model reads, and the source agent carries on.
 */
export interface HandoffPolicy {
  readonly budget?: number;
  readonly collapse?: boolean;
  readonly onError?: 'raise' | 'rejectWithMessage';
}

export type HandoffInputFilter = (data: HandoffInputData) => Awaitable<HandoffInputData>;

// Method-style types are bivariant in their parameters, so a Handoff<{ tier: string }>
// can sit in a list with a Handoff<unknown>.
export type Bivariant<F extends (...args: never[]) => unknown> = {
  fn(...args: Parameters<F>): ReturnType<F>;
}['fn'];

/** `(ctx)` or `(ctx, agent)`, told apart by `fn.length`; `agent` is the agent offering the handoff. */
export type EnabledFn<C> = Bivariant<(ctx: HandoffRunContext<C>, agent: Agent) => Awaitable<boolean>>;
/** Without `inputType`: `(ctx)` or `(ctx, data)`. */
export type OnHandoffFn<C> = Bivariant<
  (ctx: HandoffRunContext<C>, data: HandoffInputData) => Awaitable<void>
>;
/** With `inputType`: `(ctx)`, `(ctx, input)` or `(ctx, input, data)`. */
export type OnTypedHandoffFn<C, I> = Bivariant<
  (ctx: HandoffRunContext<C>, input: I, data: HandoffInputData) => Awaitable<void>
>;

/** Which arguments `onHandoff` receives; decided once, from its arity and `inputType`. */
export type OnHandoffForm = 'context' | 'input' | 'data' | 'inputAndData';

export interface HandoffOptions<C = unknown, S extends z.ZodType | undefined = undefined> {
  /** What the model reads in the tool's description. */
  description?: string;
  /** Overrides `transfer_to_<snake_case(target.name)>`. */
  toolName?: string;
  inputFilter?: HandoffInputFilter;
  /** A boolean, or a check run before each model turn; a disabled target's tool is not offered. */
  enabled?: boolean | EnabledFn<C>;
  policy?: HandoffPolicy;
  /** The arguments the model must give (its JSON schema is the tool's); validated before `onHandoff`. */
  inputType?: S;
  /** Side effects only. Its form is detected, see `onHandoffForm`. */
  onHandoff?: [S] extends [z.ZodType] ? OnTypedHandoffFn<C, z.output<S>> : OnHandoffFn<C>;
}

/** One handoff target and its knobs. Frozen. */
export interface Handoff<C = unknown> {
  readonly kind: 'handoff';
  readonly target: Agent;
  readonly targetName: string;
  readonly toolName: string;
  readonly description: string;
  readonly inputType: z.ZodType | undefined;
  readonly inputSchema: JSONSchema;
  readonly inputFilter: HandoffInputFilter | undefined;
  readonly enabled: boolean | EnabledFn<C>;
  readonly onHandoff:
    Bivariant<(ctx: HandoffRunContext<C>, ...args: unknown[]) => Awaitable<void>> | undefined;
  readonly onHandoffForm: OnHandoffForm;
  readonly policy: Readonly<{
    budget: number | undefined;
    collapse: boolean;
    onError: 'raise' | 'rejectWithMessage';
  }>;
}

/** Configures one LLM-orchestrated handoff target. */
export function handoff<C = unknown, S extends z.ZodType | undefined = undefined>(
  target: Agent,
  options: HandoffOptions<C, S> = {},
): Handoff<C> {
  const inputType: z.ZodType | undefined = options.inputType;
  const toolName = options.toolName ?? transferToolName(target.name);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(toolName)) {
    throw new HandoffConfigError(`handoff tool name "${toolName}" must match [a-zA-Z0-9_-]{1,64}`);
  }
  const onHandoff = options.onHandoff as Handoff<C>['onHandoff'];
  const budget = options.policy?.budget;
  if (budget !== undefined && !(budget >= 0)) {
    throw new HandoffConfigError(`handoff budget must be a number of tokens >= 0, got ${budget}`);
  }
  return Object.freeze({
    kind: 'handoff',
    target,
    targetName: target.name,
    toolName,
    description: options.description ?? defaultDescription(target),
    inputType,
    inputSchema: inputType ? jsonSchemaOf(inputType) : NO_ARGUMENTS,
    inputFilter: options.inputFilter,
    enabled: options.enabled ?? true,
    onHandoff,
    onHandoffForm: onHandoffForm(onHandoff, inputType !== undefined),
    policy: Object.freeze({
      budget,
      collapse: options.policy?.collapse ?? false,
      onError: options.policy?.onError ?? 'raise',
    }),
  });
}

/**
 * The rule: up to one parameter → `(ctx)`; two → `(ctx, input)` when `inputType` is set,
 * else `(ctx, data)`; three or more → `(ctx, input, data)`. Arity is `fn.length`, so a
 * parameter with a default value or a rest parameter is not counted.
 */
export function onHandoffForm(
  fn: ((...args: never[]) => unknown) | undefined,
  typed: boolean,
): OnHandoffForm {
  const arity = fn?.length ?? 0;
  if (arity <= 1) return 'context';
  if (arity === 2) return typed ? 'input' : 'data';
  return 'inputAndData';
}

/** `"Billing Agent"`, `"billingAgent"`, `"billing-agent"` → `"billing_agent"`. */
export function normaliseName(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return snake === '' ? 'agent' : snake;
}

export function transferToolName(agentName: string): string {
  return `transfer_to_${normaliseName(agentName)}`.slice(0, 64);
}

/** Wraps bare agents in a default Handoff. */
export function asHandoff<C>(entry: Agent | Handoff<C>): Handoff<C> {
  return isHandoff(entry) ? entry : handoff<C>(entry);
}

export function isHandoff(value: unknown): value is Handoff<never> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'handoff';
}

/** Calls `enabled` with `(ctx)` or `(ctx, agent)` depending on its arity. */
export async function isEnabled<C>(h: Handoff<C>, ctx: HandoffRunContext<C>, agent: Agent): Promise<boolean> {
  const enabled = h.enabled;
  if (typeof enabled === 'boolean') return enabled;
  const fn = enabled as (...args: unknown[]) => Awaitable<boolean>;
  return Boolean(await (fn.length >= 2 ? fn(ctx, agent) : fn(ctx)));
}

/** Calls `onHandoff` with the arguments its detected form asks for. */
export async function callOnHandoff<C>(
  h: Handoff<C>,
  ctx: HandoffRunContext<C>,
  input: unknown,
  data: () => HandoffInputData,
): Promise<void> {
  const fn = h.onHandoff;
  if (!fn) return;
  switch (h.onHandoffForm) {
    case 'context':
      return fn(ctx);
    case 'input':
      return fn(ctx, input);
    case 'data':
      return fn(ctx, data());
    case 'inputAndData':
      return fn(ctx, input, data());
  }
}

export function jsonSchemaOf(schema: z.ZodType): JSONSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest as JSONSchema;
}

function defaultDescription(target: Agent): string {
  const what = target.description ? ` ${target.description}` : '';
  return `Hand off to the ${target.name} agent to handle the request.${what}`;
}
