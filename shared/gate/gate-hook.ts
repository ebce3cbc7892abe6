import { AfterInvocationEvent, BeforeToolCallEvent, type Agent } from '@strands-agents/sdk';
import { z } from 'zod';
import { actsOnSource, type Choice, type Decided } from '../actions/carry-out.ts';
import { beforeTool, carryOutNow, flushDecided } from './act-queue.ts';
import { notYetCarriedOut } from './carried-early.ts';
import { releaseHolds } from '../actions/outcomes.ts';
import { appendAudit } from '../audit/audit.ts';
import { findCoveringRule } from '../memory/match.ts';
import { sourceKeyOf } from '../memory/source-key.ts';
import type { RunContext } from '../run-state/run-context.ts';
import { EXECUTOR, DecisionAnswerSchema, type DeferredItem } from '../run-state/run-ledger.ts';
import { distinctId, type SourceItem } from '../sources/source.ts';
import { recordMetric } from '../logging/metrics.ts';
import { safeSuggestion } from './safe-suggestion.ts';
import { judge, type GatePolicy } from './verdict.ts';
import { carriesWords, wordsAsApproved, wordsWithoutModel, type Words } from '../actions/words.ts';
import { errorMessage } from '../errors/index.ts';

/** The name of the one interrupt a run raises; its reason carries every deferred item. */
export const DECISIONS_INTERRUPT = 'handoff_decisions';

/** The interrupt names the items; their payloads stay in appState (one copy in the snapshot). */
export const DecisionsInterruptReasonSchema = z.object({ item_ids: z.array(z.string()) });
export type DecisionsInterruptReason = z.infer<typeof DecisionsInterruptReasonSchema>;

/** What the run is resumed with: one answer per question (answered, expired or never asked). */
export const DecisionsResponseSchema = z.object({ answers: z.array(DecisionAnswerSchema) });
export type DecisionsResponse = z.infer<typeof DecisionsResponseSchema>;

/** Which agent of the run the gate stands in front of, and the actions that agent may take. */
export interface GateScope {
  /** The executor, or the name of a specialist. */
  agent: string;
  /** The run's policy, or a specialist's (the same threshold, only its actions). */
  policy: GatePolicy;
}

/**
 * Attaches the gate to an agent of the run: it fires before submit_action's body, so an
 * item it sets aside has had nothing done to it. Every agent of a run (the executor and
 * its specialists) shares one deferred list, in the run context. On finish_batch (the
 * executor's) it raises one interrupt for everything deferred, and on resume carries out
 * the person's answers, each in the name of the agent that asked.
 */
export function attachGate(
  agent: Agent,
  ctx: RunContext,
  scope: GateScope = { agent: EXECUTOR, policy: ctx.policy },
): void {
  agent.addHook(BeforeToolCallEvent, async (event) => {
    await beforeTool(ctx, event.toolUse.name); // a full act queue is carried out; a lost source ends the run
    if (event.toolUse.name === 'submit_action') await gateSubmit(event, ctx, scope);
    else if (event.toolUse.name === 'finish_batch') await gateFinish(event, ctx);
  });
  // An executor that ends without finish_batch still carries out what the gate cleared; one
  // whose source was lost (acting, or reading its items) fails the run, whatever the model said.
  if (scope.agent === EXECUTOR)
    agent.addHook(AfterInvocationEvent, async () => {
      if (ctx.sourceLost) throw ctx.sourceLost;
      await flushDecided(ctx);
    });
}

async function gateSubmit(event: BeforeToolCallEvent, ctx: RunContext, scope: GateScope): Promise<void> {
  const input = (event.toolUse.input ?? {}) as Record<string, unknown>;
  const itemId = typeof input.item_id === 'string' ? input.item_id : '';
  const item = ctx.items.get(itemId);
  if (!item) {
    event.cancel = `unknown item id "${itemId}": call fetch_items and use an id it returned`;
    return;
  }
  if (ctx.ledger.isDeferred(itemId)) {
    event.cancel = `item ${itemId} is already set aside for the person`;
    return;
  }
  const owner = ctx.ledger.ownerOf(itemId);
  if (owner !== scope.agent) {
    event.cancel =
      owner === EXECUTOR
        ? `item ${itemId} was not handed to you (${scope.agent}); act only on the item you were given`
        : `item ${itemId} was handed to ${owner}; only ${owner} decides it now`;
    return;
  }
  const rule = findCoveringRule(
    ctx.rules,
    ctx.workflow.id,
    { senderAddress: item.sender.address, subject: item.subject, text: item.text },
    sourceKeyOf(ctx.workflow),
  );
  const verdict = judge(
    { action: input.action, confidence: input.confidence, forceInterrupt: input.force_interrupt },
    scope.policy,
    rule,
  );
  const agent = scope.agent === EXECUTOR ? {} : { agent: scope.agent };
  const reasoning = typeof input.reasoning === 'string' ? input.reasoning : '';
  if (verdict.kind === 'defer') {
    await setAside(ctx, item, {
      action: verdict.action,
      confidence: verdict.confidence,
      reasoning,
      reason: verdict.reason,
      ...agent,
    });
    event.cancel = `set aside for the person (${verdict.reason}); nothing was done to this item. Carry on with the next item.`;
    return;
  }
  const choice: Choice =
    verdict.kind === 'rewrite'
      ? {
          action: verdict.action,
          decidedBy: 'memory',
          confidence: 1,
          reasoning: `rule ${verdict.rule.id}${verdict.rule.note ? ` (${verdict.rule.note})` : ''}`,
          note: null,
          ruleId: verdict.rule.id,
          ruleSource: verdict.rule.source,
          ...agent,
        }
      : {
          action: verdict.action,
          decidedBy: 'model',
          confidence: verdict.confidence,
          reasoning,
          note: null,
          ruleId: null,
          ruleSource: null,
          ...agent,
        };
  if (verdict.kind === 'rewrite') {
    event.toolUse.input = { ...input, action: verdict.action, confidence: 1 };
    recordMetric('ItemsByMemory');
    ctx.emit('memory', `Rule ${verdict.rule.id} covers: ${item.subject}`, {
      item_id: item.id,
      rule_id: verdict.rule.id,
    });
  }
  ctx.verdicts.set(event.toolUse.toolUseId, choice);
}

/**
 * Sets an item aside for the person: nothing is done to it, it goes on the run's one
 * deferred list, to be asked about at the end of the pass, and it is held for this run in
 * the store with the next batch of claims (taken back, and not asked, when another run
 * has it by then). An item the reasoning marks as dangerous is never offered an action
 * that hides it (see safeSuggestion).
 */
export async function setAside(
  ctx: RunContext,
  item: SourceItem,
  proposal: { action: string; confidence: number; reasoning: string; reason: string; agent?: string },
): Promise<void> {
  ctx.holds.push(item);
  const { agent, ...rest } = proposal;
  const suggestion = safeSuggestion({
    action: rest.action,
    reasoning: rest.reasoning || '(the model gave no reasoning)',
  });
  const entry: DeferredItem = {
    item_id: item.id,
    ref: item.ref,
    sender: item.sender.address,
    subject: item.subject,
    snippet: snippetOf(item.text),
    suggested_action: suggestion.action,
    confidence: rest.confidence,
    reasoning: suggestion.reasoning,
    reason: rest.reason,
    ...(agent !== undefined ? { agent } : {}),
  };
  const drafts = await draftsFor(ctx, item, suggestion.action);
  if (drafts.length > 0) entry.drafts = drafts;
  ctx.ledger.defer(entry);
  ctx.emit('deferred', `Set aside: ${item.subject}`, {
    item_id: item.id,
    reason: rest.reason,
    ...(agent !== undefined ? { agent } : {}),
  });
}

/**
 * The words of every action the person may choose for the item that carries words (the
 * suggestion and the question's options, as the workflow declares them), written now, so
 * the person reads and edits them where they decide. One the model cannot write is written
 * when the answer is carried out.
 */
async function draftsFor(ctx: RunContext, item: SourceItem, suggested: string): Promise<Words[]> {
  const declared = new Set(ctx.workflow.actions.map((a) => a.name));
  const actions = [...new Set([suggested, ...ctx.workflow.human_gate.options])].filter(
    (a) => declared.has(a) && carriesWords(a),
  );
  const drafts: Words[] = [];
  for (const action of actions) {
    try {
      const words = ctx.compose ? await ctx.compose(item, action) : wordsWithoutModel(item, action);
      if (words) drafts.push(words);
    } catch (error) {
      ctx.emit('failed', `No ${action} draft for ${item.subject}: ${errorMessage(error)}`, {
        item_id: item.id,
      });
    }
  }
  return drafts;
}

async function gateFinish(event: BeforeToolCallEvent, ctx: RunContext): Promise<void> {
  const setAsideAll = ctx.ledger.deferred();
  if (setAsideAll.length === 0) return;
  ctx.ledger.persistDeferred(); // the snapshot taken at the pause carries them to whoever resumes
  const reason: DecisionsInterruptReason = { item_ids: setAsideAll.map((d) => d.item_id) };
  const response = DecisionsResponseSchema.parse(event.interrupt({ name: DECISIONS_INTERRUPT, reason }));
  // Items carried out as their answers arrived are counted, never acted on again.
  const deferred = await notYetCarriedOut(ctx, setAsideAll);
  const decided: Decided[] = [];
  const choices = deferred.map((entry) =>
    choiceFor(
      entry,
      response.answers.find((a) => a.item_id === entry.item_id),
    ),
  );
  // Only the items whose action needs their content are read again: a skip needs no more than
  // the question held, and a source's by-ref actions (Maildir's moves) only the ref.
  const fromQuestion = choices.map((c) => !actsOnSource(c) || (ctx.source.actsByRef?.has(c.action) ?? false));
  const reread = await rereadAll(
    ctx,
    deferred.filter((d, i) => !ctx.items.has(d.item_id) && !fromQuestion[i]),
  );
  for (const [i, entry] of deferred.entries()) {
    const choice = choices[i]!;
    const item =
      ctx.items.get(entry.item_id) ?? reread.get(entry.item_id) ?? (fromQuestion[i] ? asked(entry) : null);
    if (item) decided.push({ item, choice, held: true });
    else await recordVanished(ctx, entry, choice);
  }
  await carryOutNow(ctx, decided); // the answers together: one batch for the source
  ctx.ledger.clearDeferred();
}

/** What the person's answer (or its absence) comes to for one item set aside. */
function choiceFor(entry: DeferredItem, answer: DecisionsResponse['answers'][number] | undefined): Choice {
  // No answer for an item is never a licence to act: it is skipped.
  const action = answer?.by === 'human' ? resolveAction(answer.action, entry) : 'skip';
  const words = answer
    ? wordsAsApproved(action, entry.drafts, { body: answer.body, title: answer.title })
    : undefined;
  return {
    action,
    decidedBy: 'human',
    confidence: 1,
    reasoning: entry.reasoning,
    note: answer?.note ?? null,
    ruleId: null,
    ruleSource: null,
    expired: answer?.by !== 'human',
    skipReason: answer?.reason ?? null,
    ...(answer?.by === 'human' ? { decisionId: answer.decision_id } : {}),
    ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
    ...(words ? { words } : {}),
  };
}

/** The item as its question describes it: enough to record a skip or carry out a by-ref action. */
function asked(entry: DeferredItem): SourceItem {
  return {
    id: entry.item_id,
    ref: entry.ref,
    sender: { address: entry.sender, name: '' },
    to: [],
    subject: entry.subject,
    text: entry.snippet,
    date: null,
    hints: [],
  };
}

function resolveAction(action: string, entry: DeferredItem): string {
  return action === 'approve_suggested' ? entry.suggested_action : action;
}

/** The items set aside before a pause, read again (a page at a time, side by side), by item id; one gone is absent. */
async function rereadAll(
  ctx: RunContext,
  entries: readonly DeferredItem[],
): Promise<Map<string, SourceItem>> {
  const found = new Map<string, SourceItem>();
  for (let i = 0; i < entries.length; i += ctx.pageSize) {
    const page = entries.slice(i, i + ctx.pageSize);
    const reads = ctx.source.readMany
      ? await ctx.source.readMany(page.map((e) => e.ref))
      : await Promise.all(page.map((e) => ctx.source.read(e.ref)));
    for (const [k, read] of reads.entries()) {
      const entry = page[k]!;
      if (!read.ok) continue;
      if (read.item.id === entry.item_id) found.set(entry.item_id, read.item);
      else if (distinctId(read.item) === entry.item_id)
        found.set(entry.item_id, { ...read.item, id: entry.item_id });
    }
  }
  return found;
}

/** The item left the source while the run waited: nothing is done, and the audit says so. */
async function recordVanished(ctx: RunContext, entry: DeferredItem, choice: Choice): Promise<void> {
  const detail = goneDetail(entry.item_id);
  await releaseHolds(ctx.store, { id: ctx.runId, workflow_id: ctx.workflow.id }, [entry.item_id]);
  await appendAudit(ctx.store, {
    run_id: ctx.runId,
    workflow_id: ctx.workflow.id,
    item_id: entry.item_id,
    subject: entry.subject,
    sender: entry.sender,
    outcome: 'failed',
    action: choice.action,
    decided_by: choice.expired ? null : 'human',
    confidence: 1,
    reasoning: entry.reasoning,
    note: choice.note,
    detail,
    agent: choice.agent,
  });
  ctx.ledger.bump(['failed']);
  ctx.emit('failed', `${choice.expired ? 'expired' : choice.action}: ${entry.subject}`, {
    item_id: entry.item_id,
    action: choice.action,
    outcome: 'failed',
    decided_by: 'human',
    reason: detail,
    ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
  });
}

/** Why an item asked about was not acted on: it left the source (another client moved or deleted it). */
export function goneDetail(itemId: string): string {
  return `gone: ${itemId} is no longer in the source (moved or deleted elsewhere while the run waited); nothing was done`;
}

const SNIPPET_CHARS = 400;

function snippetOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS);
}
