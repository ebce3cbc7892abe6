import type { Message } from '@strands-agents/sdk';

export interface HandoffInputDataInit {
  /** Name of the agent handing off. */
  readonly source: string;
  /** Name of the agent receiving the handoff. */
  readonly target: string;
  /** What the source agent inherited: the history it started with, including its input. */
  readonly context: readonly Message[];
  /** What the source agent produced in this run, up to and including the transfer. */
  readonly output: readonly Message[];
  /** The slice to forward, once a policy or filter has chosen one. */
  readonly forwarded?: readonly Message[] | undefined;
}

/**
 * What a handoff's input filter (and a full-data `onHandoff`) sees. Frozen, and so are
 * its messages: `context` and `output` are the audit trail and never change; a filter
 * decides what the target sees by returning `data.clone({ forwarded })`.
 */
export class HandoffInputData {
  readonly source: string;
  readonly target: string;
  readonly context: readonly Message[];
  readonly output: readonly Message[];
  readonly forwarded: readonly Message[] | undefined;

  constructor(init: HandoffInputDataInit) {
    this.source = init.source;
    this.target = init.target;
    this.context = frozenList(init.context);
    this.output = frozenList(init.output);
    this.forwarded = init.forwarded === undefined ? undefined : frozenList(init.forwarded);
    Object.freeze(this);
  }

  /** The full pre-filter view: `context` followed by `output`. */
  get messages(): readonly Message[] {
    return Object.freeze([...this.context, ...this.output]);
  }

  /** What a filter reads: `forwarded` if a policy or earlier filter set it, else `messages`. */
  get current(): readonly Message[] {
    return this.forwarded ?? this.messages;
  }

  /** A copy with `forwarded` replaced; `context` and `output` are shared, not copied. */
  clone(changes: { forwarded: readonly Message[] | undefined }): HandoffInputData {
    return new HandoffInputData({
      source: this.source,
      target: this.target,
      context: this.context,
      output: this.output,
      forwarded: changes.forwarded,
    });
  }
}

/** A frozen list is kept as is (so `clone` shares the audit trail); any other is copied. */
function frozenList(list: readonly Message[]): readonly Message[] {
  return deepFreeze(Object.isFrozen(list) ? list : [...list]);
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) {
    deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  }
  return value;
}
