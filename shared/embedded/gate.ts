import {
  AfterToolCallEvent,
  BeforeToolCallEvent,
  BeforeToolsEvent,
  type LocalAgent,
  type Plugin,
} from '@strands-agents/sdk';
import { InvalidInputError } from '../errors/index.ts';
import type { Rule } from '../records/rule.ts';
import { judge, type GatePolicy, type GateVerdict } from '../gate/verdict.ts';
import { askPerson, DEFAULT_ASK_TIMEOUT_MS } from './ask.ts';
import { auditRecord, coveringRule, learnFrom, recallSubject, rulesOf } from './memory.ts';
import {
  GateResponseSchema,
  type EmbeddedGateOptions,
  type GateQuestion,
  type GateRecord,
  type GateResponse,
  type SkipCause,
} from './types.ts';

/** The name every embedded question set's interrupt starts with (then `:` and the turn's first call id). */
export const EMBEDDED_INTERRUPT = 'handoff_gate';

/** The default confidence threshold, as in a run. */
export const DEFAULT_THRESHOLD = 0.7;

/** The gate's ruling on one call of a turn. */
interface Ruling {
  turn: string;
  tool: string;
  verdict: GateVerdict;
  reasoning: string;
  rule: Rule | null;
  /** For a deferred call: the person's answer, or why there is none. */
  approved?: boolean;
  note?: string | null;
  cause?: SkipCause;
}

/**
 * The gate, embedded in a host's own Strands agent (`new Agent({ plugins: [gate] })`). It
 * stands before each of the declared tools and judges every call exactly as a run's gate
 * does: a covering rule first, an irreversible tool always asks, then the model's
 * `confidence` (a malformed one counts as 0) against the threshold. The unsure calls of a
 * turn are asked together, once, through `ask`; the answers are handed to
 * `event.interrupt()` as a preemptive response, so the agent does not pause. A call runs
 * only when the person approved it; no answer (a failure, a timeout) skips it, and the
 * agent is told it was not allowed.
 */
export class EmbeddedGate implements Plugin {
  readonly name = 'handoff:embedded-gate';
  private readonly threshold: number;
  private readonly askTimeoutMs: number;
  private readonly scope: string;
  private readonly rulings = new Map<string, Ruling>();
  private readonly log: GateRecord[] = [];

  constructor(private readonly options: EmbeddedGateOptions) {
    const names = Object.keys(options.tools ?? {});
    if (names.length === 0)
      throw new InvalidInputError(
        'the embedded gate needs at least one tool in `tools`: name the tools that change the world',
      );
    this.threshold = options.threshold ?? DEFAULT_THRESHOLD;
    if (!Number.isFinite(this.threshold) || this.threshold < 0 || this.threshold > 1)
      throw new InvalidInputError(`threshold must be a number from 0 to 1, not ${String(options.threshold)}`);
    this.askTimeoutMs = options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
    if (!Number.isFinite(this.askTimeoutMs) || this.askTimeoutMs <= 0)
      throw new InvalidInputError(
        `askTimeoutMs must be a positive number of milliseconds, not ${String(options.askTimeoutMs)}`,
      );
    this.scope = options.scope ?? 'embedded';
    if (options.learner && !options.store)
      throw new InvalidInputError('a learner needs a `store` to keep the rules it writes');
  }

  /** Every gated call's outcome so far, oldest first. */
  get records(): readonly GateRecord[] {
    return this.log;
  }

  /** Attaches the gate's hooks (called by the agent for a plugin). */
  initAgent(agent: LocalAgent): void {
    agent.addHook(BeforeToolsEvent, (event) => this.beforeTurn(event));
    agent.addHook(BeforeToolCallEvent, (event) => this.beforeCall(event));
    agent.addHook(AfterToolCallEvent, (event) => this.afterCall(event));
  }

  /** Judges every gated call of the turn, and asks about the unsure ones in one question set. */
  private async beforeTurn(event: BeforeToolsEvent): Promise<void> {
    const uses = event.message.content.flatMap((b) =>
      b.type === 'toolUseBlock' && Object.hasOwn(this.options.tools, b.name) ? [b] : [],
    );
    if (uses.length === 0) return;
    const turn = `${this.scope}:${uses[0]!.toolUseId}`;
    const subjects = uses.map((use) =>
      recallSubject(use.name, this.options.tools[use.name]!, inputOf(use.input)),
    );
    const rules = await rulesOf(
      this.options.store,
      this.scope,
      subjects.map((s) => s.senderAddress),
    );
    const questions: GateQuestion[] = [];
    for (const [i, use] of uses.entries()) {
      const input = inputOf(use.input);
      const policy = this.options.tools[use.name]!;
      const rule = coveringRule(rules, this.scope, use.name, subjects[i]!);
      const gatePolicy: GatePolicy = {
        threshold: this.threshold,
        actions: new Map([[use.name, { irreversible: policy.irreversible === true }]]),
      };
      const verdict = judge(
        { action: use.name, confidence: input.confidence, forceInterrupt: input.force_interrupt },
        gatePolicy,
        rule,
      );
      const reasoning = typeof input.reasoning === 'string' ? input.reasoning : '';
      this.rulings.set(use.toolUseId, { turn, tool: use.name, verdict, reasoning, rule: rule ?? null });
      if (verdict.kind === 'defer')
        questions.push({
          id: use.toolUseId,
          tool: use.name,
          input,
          confidence: verdict.confidence,
          reasoning,
          reason: verdict.reason,
          irreversible: policy.irreversible === true,
          options: ['approve', 'skip'],
        });
    }
    if (questions.length === 0) return;
    const preemptive = this.options.ask
      ? await askPerson(this.options.ask, questions, this.askTimeoutMs)
      : undefined;
    const raw = event.interrupt({
      name: `${EMBEDDED_INTERRUPT}:${uses[0]!.toolUseId}`,
      reason: { questions: questions.map(({ options: _, ...q }) => q) } as never,
      ...(preemptive ? { response: preemptive as never } : {}),
    });
    await this.apply(questions, parseResponse(raw));
  }

  /** Hands each answer to its ruling (a missing one is a skip) and lets the Learner see it. */
  private async apply(questions: readonly GateQuestion[], response: GateResponse): Promise<void> {
    for (const question of questions) {
      const ruling = this.rulings.get(question.id)!;
      const answer = response.answers.find((a) => a.id === question.id);
      ruling.approved = answer?.action === 'approve';
      ruling.note = answer?.note ?? null;
      if (!ruling.approved) ruling.cause = answer ? 'person' : (response.unreachable ?? 'no_answer');
      const { store, learner } = this.options;
      if (answer && store && learner) {
        const policy = this.options.tools[question.tool]!;
        await learnFrom(store, learner, this.scope, {
          id: question.id,
          tool: question.tool,
          irreversible: question.irreversible,
          approved: ruling.approved,
          note: ruling.note,
          subject: recallSubject(question.tool, policy, question.input),
        }).catch(() => null); // learning may fail; the answer still stands
      }
    }
  }

  /** Lets an allowed call run; cancels any other before its body, saying why. */
  private async beforeCall(event: BeforeToolCallEvent): Promise<void> {
    const { name, toolUseId } = event.toolUse;
    if (!Object.hasOwn(this.options.tools, name)) return;
    const ruling = this.rulings.get(toolUseId);
    if (!ruling) {
      event.cancel = `skipped: ${name} was not judged by the gate, so it was not allowed; nothing was done.`;
      return;
    }
    const { verdict } = ruling;
    if (verdict.kind === 'rewrite' && verdict.action === 'skip') {
      event.cancel = `skipped: a rule (${verdict.rule.id}) says not to ${name} here; nothing was done. Do not retry it.`;
      await this.finish(toolUseId, 'skipped', 'memory', 'rule');
    } else if (verdict.kind === 'defer' && !ruling.approved) {
      const cause = ruling.cause ?? 'no_answer';
      event.cancel = `skipped: ${name} was not allowed (${describeCause(cause)}); nothing was done. Do not retry it.`;
      await this.finish(toolUseId, 'skipped', cause === 'person' ? 'human' : null, cause);
    }
  }

  /** Records what an allowed call did. */
  private async afterCall(event: AfterToolCallEvent): Promise<void> {
    const ruling = this.rulings.get(event.toolUse.toolUseId);
    if (!ruling) return;
    const by =
      ruling.verdict.kind === 'defer' ? 'human' : ruling.verdict.kind === 'rewrite' ? 'memory' : 'model';
    await this.finish(
      event.toolUse.toolUseId,
      event.result.status === 'error' ? 'failed' : 'acted',
      by,
      null,
    );
  }

  private async finish(
    id: string,
    outcome: GateRecord['outcome'],
    decidedBy: GateRecord['decided_by'],
    cause: SkipCause | null,
  ): Promise<void> {
    const ruling = this.rulings.get(id);
    if (!ruling) return;
    this.rulings.delete(id);
    const record: GateRecord = {
      id,
      tool: ruling.tool,
      outcome,
      decided_by: decidedBy,
      confidence: ruling.verdict.confidence,
      asked_because: ruling.verdict.kind === 'defer' ? ruling.verdict.reason : null,
      skipped_because: cause,
      note: ruling.note ?? null,
      rule_id: ruling.rule?.id ?? null,
      at: new Date().toISOString(),
    };
    this.log.push(record);
    this.options.onRecord?.(record);
    if (this.options.store)
      await auditRecord(this.options.store, this.scope, ruling.turn, record, ruling.reasoning);
  }
}

/** Makes the embedded gate for a host agent: pass it in the agent's `plugins`. */
export function embeddedGate(options: EmbeddedGateOptions): EmbeddedGate {
  return new EmbeddedGate(options);
}

function inputOf(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/** A response that is not the gate's shape answers nothing: every question is skipped. */
function parseResponse(raw: unknown): GateResponse {
  const parsed = GateResponseSchema.safeParse(raw);
  return parsed.success ? parsed.data : { answers: [], unreachable: 'no_answer' };
}

function describeCause(cause: SkipCause): string {
  switch (cause) {
    case 'person':
      return 'the person said skip';
    case 'rule':
      return 'a rule says skip';
    case 'ask_failed':
      return 'the person could not be asked';
    case 'ask_timeout':
      return 'the person did not answer in time';
    case 'no_answer':
      return 'the person gave no answer';
  }
}
