// docs:begin imports
import { Agent, BeforeToolCallEvent, tool, type Model } from '@strands-agents/sdk';
import { z } from 'zod';
import {
  compose,
  handoff,
  handoffOccurred,
  handoffRoute,
  handoffs,
  keepLastN,
  removeToolCalls,
  resumeWithHandoffs,
  runWithHandoffs,
  type HandoffInputFilter,
  type HandoffRunContext,
  type HandoffRunState,
} from '../../shared/handoffs/index.ts';
// docs:end
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { call, say, SeeingModel, type TurnScript } from './support.ts';

/*
 * The examples of docs/handoffs.md, run with scripted models. Each region between
 * `docs:begin` and `docs:end` appears verbatim in the guide (guide.test.ts checks that).
 */

const model = (script: TurnScript): Model => new SeeingModel(script);
/** Calls `first` once, then answers `text` (stateless: it reads the history). */
const thenSay =
  (first: ReturnType<typeof call>, text: string): TurnScript =>
  (results) =>
    results.length === 0 ? first : say(text);

async function llmOrchestrated(
  triageModel: Model,
  refundsModel: Model,
  billingModel: Model,
  priorityModel: Model,
) {
  // docs:begin llm
  const refunds = new Agent({
    name: 'Refunds',
    description: 'Refunds for orders.',
    model: refundsModel,
    printer: false,
  });
  const billing = new Agent({ name: 'Billing', model: billingModel, printer: false });
  const prioritySupport = new Agent({ name: 'Priority Support', model: priorityModel, printer: false });

  const premiumOnly = (ctx: HandoffRunContext<{ tier: string }>) => ctx.context.tier === 'premium';

  const triage = new Agent({
    name: 'Triage',
    model: triageModel,
    systemPrompt: 'Route the user to the right specialist.',
    printer: false,
    plugins: [
      handoffs([
        refunds, // a bare agent: transfer_to_refunds, whole history forwarded
        handoff(billing, {
          description: 'Transfer for invoice or payment questions.',
          policy: { budget: 5_000, collapse: true, onError: 'rejectWithMessage' },
        }),
        handoff(prioritySupport, {
          description: 'Priority support, premium users only.',
          enabled: premiumOnly,
        }),
      ]),
    ],
  });

  const result = await runWithHandoffs(triage, 'I was charged twice this month.', {
    context: { tier: 'basic' },
  });
  // result.lastAgent.name === 'Billing'; handoffOccurred(result, 'Triage', 'Billing') === true
  // docs:end
  return result;
}

async function codeOrchestrated(classifierModel: Model, refunds: Agent, billing: Agent, general: Agent) {
  // docs:begin route
  const RefundIntent = z.object({ kind: z.literal('refund'), orderId: z.string().optional() });
  const BillingIntent = z.object({ kind: z.literal('billing') });
  const Respond = z.object({ kind: z.literal('respond'), text: z.string() });
  const TriageOutput = z.discriminatedUnion('kind', [RefundIntent, BillingIntent, Respond]);

  const route = handoffRoute('triage')
    .when(RefundIntent)
    .to(refunds)
    .when(BillingIntent)
    .to(billing)
    .otherwise(general);
  // the same, compactly: handoffRoute.of([RefundIntent, refunds], [BillingIntent, billing], { otherwise: general })

  const triage = new Agent({
    name: 'Triage',
    model: classifierModel,
    systemPrompt: "Classify the user's request into an intent type.",
    structuredOutputSchema: TriageOutput,
    printer: false,
    plugins: [handoffs(route)],
  });

  const result = await runWithHandoffs(triage, 'Please refund order 123.');
  // result.lastAgent.name === 'Refunds': one model call classified, plain code routed
  // docs:end
  return result;
}

async function filters(collectorModel: Model, resolver: Agent) {
  // docs:begin filters
  // A custom filter: forward only what the collector produced, not what it inherited.
  const producedOnly: HandoffInputFilter = (data) => data.clone({ forwarded: data.output });

  const collector = new Agent({
    name: 'Collector',
    model: collectorModel,
    printer: false,
    plugins: [
      handoffs([
        handoff(resolver, {
          description: 'Transfer once all information is collected.',
          inputFilter: compose(producedOnly, removeToolCalls, keepLastN(8)),
        }),
      ]),
    ],
  });
  // docs:end
  return runWithHandoffs(collector, 'My order 7 arrived broken.');
}

async function typedInput(supportModel: Model, escalation: Agent) {
  // docs:begin typed
  const EscalationInput = z.object({
    reason: z.string().describe('Why this needs escalation.'),
    priority: z.number().int().min(1).max(5).describe('Priority 1-5.'),
  });
  const escalations: string[] = [];

  const support = new Agent({
    name: 'Support',
    model: supportModel,
    printer: false,
    plugins: [
      handoffs([
        handoff(escalation, {
          description: 'Escalate complex issues with a reason and priority.',
          inputType: EscalationInput, // the tool's JSON schema; arguments are validated first
          onHandoff: (_ctx, input) => void escalations.push(`${input.reason} (priority ${input.priority})`),
          policy: { onError: 'rejectWithMessage' }, // bad arguments go back to the model
        }),
      ]),
    ],
  });
  // docs:end
  const result = await runWithHandoffs(support, 'This is the third outage this week.');
  return { result, escalations };
}

function pauseResumeAgents(triageModel: Model, refundsModel: Model, issued: string[]) {
  // docs:begin resume-agents
  // Every process builds the agents the same way.
  function buildAgents(): Record<string, Agent> {
    const issueRefund = tool({
      name: 'issue_refund',
      description: 'Pay a refund for an order.',
      inputSchema: z.object({ orderId: z.string() }),
      callback: ({ orderId }) => (issued.push(orderId), { refunded: orderId }),
    });
    const refunds = new Agent({ name: 'Refunds', model: refundsModel, tools: [issueRefund], printer: false });
    refunds.addHook(BeforeToolCallEvent, (event) => {
      if (event.toolUse.name !== 'issue_refund') return;
      const answer = event.interrupt<{ approved: boolean }>({
        name: 'approve_refund',
        reason: event.toolUse.input,
      });
      if (!answer.approved) event.cancel = 'the person declined this refund';
    });
    const RefundRequest = z.object({ orderId: z.string() });
    const triage = new Agent({
      name: 'Triage',
      model: triageModel,
      printer: false,
      plugins: [handoffs([handoff(refunds, { inputType: RefundRequest })])],
    });
    return { Triage: triage, Refunds: refunds };
  }
  // docs:end
  return buildAgents;
}

async function pauseAndResume(buildAgents: () => Record<string, Agent>, file: string) {
  // docs:begin resume
  // Process A: the run pauses inside Refunds; save where it stands.
  const paused = await runWithHandoffs(buildAgents().Triage!, 'Please refund order 42.');
  if (paused.stopReason === 'interrupt') {
    const saved = { state: paused.state, interruptId: paused.interrupts[0]!.id };
    await fs.writeFile(file, JSON.stringify(saved));
  }

  // Process B, later: fresh agents, same factory; the run resumes in Refunds.
  const saved = JSON.parse(await fs.readFile(file, 'utf8')) as {
    state: HandoffRunState;
    interruptId: string;
  };
  const done = await resumeWithHandoffs(buildAgents(), saved.state, [
    { interruptId: saved.interruptId, response: { approved: true } },
  ]);
  // done.lastAgent.name === 'Refunds'; the approved refund ran in process B
  // docs:end
  return { paused, done };
}

describe('docs/handoffs.md examples', () => {
  it('LLM-orchestrated, with Handoff options', async () => {
    const result = await llmOrchestrated(
      model(thenSay(call('transfer_to_billing'), 'unused')),
      model(() => say('refunds')),
      model(() => say('Billing: the duplicate charge is reversed.')),
      model(() => say('priority')),
    );
    expect(result.lastAgent.name).toBe('Billing');
    expect(handoffOccurred(result, 'Triage', 'Billing')).toBe(true);
    expect(result.output).toBe('Billing: the duplicate charge is reversed.');
  });

  it('code-orchestrated, with handoffRoute', async () => {
    const classifier = new SeeingModel((_r, input) => ({
      toolCalls: [{ name: input.options!.toolSpecs![0]!.name, input: { kind: 'refund', orderId: '123' } }],
    }));
    const specialist = (name: string) => new Agent({ name, model: model(() => say(name)), printer: false });
    const result = await codeOrchestrated(
      classifier,
      specialist('Refunds'),
      specialist('Billing'),
      specialist('General'),
    );
    expect(result.lastAgent.name).toBe('Refunds');
    expect(classifier.calls).toHaveLength(1);
    expect(result.newItems[0]).toMatchObject({
      type: 'handoff_call',
      via: 'route',
      input: { orderId: '123' },
    });
  });

  it('filters', async () => {
    const resolverModel = new SeeingModel(() => say('resolved'));
    const lookup = call('transfer_to_resolver');
    const result = await filters(
      model(thenSay(lookup, 'unused')),
      new Agent({ name: 'Resolver', model: resolverModel, printer: false }),
    );
    expect(result.lastAgent.name).toBe('Resolver');
    // produced only (the user's message was inherited), tool calls removed: only the handoff note
    const seen = resolverModel.calls[0]!.messages;
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(seen[0])).toContain('Collector transferred this conversation');
  });

  it('typed input', async () => {
    const { result, escalations } = await typedInput(
      model(thenSay(call('transfer_to_escalations', { reason: 'repeated outages', priority: 5 }), 'unused')),
      new Agent({ name: 'Escalations', model: model(() => say('escalated')), printer: false }),
    );
    expect(result.lastAgent.name).toBe('Escalations');
    expect(escalations).toEqual(['repeated outages (priority 5)']);
  });

  it('pause and resume', async () => {
    const issued: string[] = [];
    const triageModel = model(thenSay(call('transfer_to_refunds', { orderId: '42' }), 'unused'));
    const refundsModel = model((results) =>
      results.some((r) => r.name === 'issue_refund')
        ? say('Refunded order 42.')
        : call('issue_refund', { orderId: '42' }),
    );
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoffs-example-'));
    const { paused, done } = await pauseAndResume(
      pauseResumeAgents(triageModel, refundsModel, issued),
      path.join(dir, 'run.json'),
    );
    expect(paused.lastAgent.name).toBe('Refunds');
    expect(done.lastAgent.name).toBe('Refunds');
    expect(done.output).toBe('Refunded order 42.');
    expect(issued).toEqual(['42']);
    await fs.rm(dir, { recursive: true, force: true });
  });
});
