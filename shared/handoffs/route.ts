import type { Agent } from '@strands-agents/sdk';
import type { z } from 'zod';
import { UnhandledIntentError } from './errors.ts';
import type {
  Awaitable,
  Bivariant,
  HandoffInputFilter,
  HandoffPolicy,
  HandoffRunContext,
} from './handoff.ts';

/** `(ctx)` or `(ctx, intent)`: whether a matched rule may take this intent. */
export type RouteEnabledFn<C, I> = Bivariant<(ctx: HandoffRunContext<C>, intent: I) => Awaitable<boolean>>;

export interface RouteForwarding {
  /** Applied to the history before the target's first turn, as for a `Handoff`. */
  readonly inputFilter?: HandoffInputFilter;
  readonly policy?: Pick<HandoffPolicy, 'budget' | 'collapse'>;
}

export interface RouteTargetOptions<C, I> extends RouteForwarding {
  readonly enabled?: RouteEnabledFn<C, I>;
}

export interface RouteRule<C = unknown> {
  readonly intent: z.ZodType;
  readonly target: Agent;
  readonly options: RouteTargetOptions<C, unknown>;
}

/** What `resolve` chose: the target and the intent as its schema parsed it. */
export interface RouteMatch {
  readonly route: string;
  readonly target: Agent;
  readonly intent: unknown;
  /** The index of the rule that matched, or `'otherwise'`. */
  readonly rule: number | 'otherwise';
  readonly forwarding: RouteForwarding;
}

export interface RouteWhen<C, I> {
  to(target: Agent, options?: RouteTargetOptions<C, I>): HandoffRoute<C>;
}

/**
 * Maps an intent (an agent's structured output) to the agent that handles it, in plain
 * code: rules are tried in order; a rule matches when its schema parses the intent and
 * its `enabled` (if any) says yes; otherwise the fallback; otherwise `UnhandledIntentError`.
 * Immutable: every `when(...).to(...)` and `otherwise(...)` returns a new route.
 */
export class HandoffRoute<C = unknown> {
  readonly kind = 'route';

  constructor(
    readonly name: string,
    readonly rules: readonly RouteRule<C>[] = [],
    readonly fallback:
      { readonly target: Agent; readonly forwarding: RouteForwarding } | undefined = undefined,
  ) {
    Object.freeze(rules);
    Object.freeze(this);
  }

  when<S extends z.ZodType>(intent: S): RouteWhen<C, z.output<S>> {
    return {
      to: (target, options = {}) =>
        new HandoffRoute<C>(
          this.name,
          [...this.rules, { intent, target, options: options as RouteTargetOptions<C, unknown> }],
          this.fallback,
        ),
    };
  }

  otherwise(target: Agent, forwarding: RouteForwarding = {}): HandoffRoute<C> {
    return new HandoffRoute<C>(this.name, this.rules, { target, forwarding });
  }

  /** Picks the target for `intent`. Pure code: no model is called. */
  async resolve(intent: unknown, ctx: HandoffRunContext<C>): Promise<RouteMatch> {
    for (const [index, rule] of this.rules.entries()) {
      const parsed = rule.intent.safeParse(intent);
      if (!parsed.success) continue;
      if (rule.options.enabled && !(await callEnabled(rule.options.enabled, ctx, parsed.data))) continue;
      return {
        route: this.name,
        target: rule.target,
        intent: parsed.data,
        rule: index,
        forwarding: rule.options,
      };
    }
    if (this.fallback) {
      const { target, forwarding } = this.fallback;
      return { route: this.name, target, intent, rule: 'otherwise', forwarding };
    }
    throw new UnhandledIntentError(this.name, intent);
  }
}

export type RoutePair = readonly [intent: z.ZodType, target: Agent];

export interface RouteOfOptions {
  readonly otherwise?: Agent;
  readonly name?: string;
}

/**
 * `handoffRoute('triage').when(RefundIntent).to(refunds).otherwise(general)`, or the
 * compact `handoffRoute.of([RefundIntent, refunds], [BillingIntent, billing], { otherwise: general })`.
 */
export const handoffRoute = Object.assign(
  <C = unknown>(name: string): HandoffRoute<C> => new HandoffRoute<C>(name),
  {
    of<C = unknown>(...entries: readonly (RoutePair | RouteOfOptions)[]): HandoffRoute<C> {
      const pairs = entries.filter((e): e is RoutePair => Array.isArray(e));
      const options = entries.find((e): e is RouteOfOptions => !Array.isArray(e)) ?? {};
      let route = new HandoffRoute<C>(options.name ?? 'route');
      for (const [intent, target] of pairs) route = route.when(intent).to(target);
      return options.otherwise ? route.otherwise(options.otherwise) : route;
    },
  },
);

export function isRoute(value: unknown): value is HandoffRoute<never> {
  return value instanceof HandoffRoute;
}

async function callEnabled<C>(fn: RouteEnabledFn<C, unknown>, ctx: HandoffRunContext<C>, intent: unknown) {
  const f = fn as (...args: unknown[]) => Awaitable<boolean>;
  return Boolean(await (f.length >= 2 ? f(ctx, intent) : f(ctx)));
}
