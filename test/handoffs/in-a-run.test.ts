import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Message, ModelStreamEvent, StreamOptions } from '@strands-agents/sdk';
import { listAudit } from '../../shared/audit/audit.ts';
import { handoffOccurred } from '../../shared/handoffs/index.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { toolNames, systemText } from '../../shared/models/turn-model.ts';
import { readSession } from '../../shared/recorder/store-sink.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { SPECIALISTS, handoffItems, specialistOf, specialistsScript } from './fixtures/specialists.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** The offline model, keeping what each specialist's calls were shown. */
class WatchedOfflineModel extends OfflineModel {
  readonly specialistCalls: { agent: string; messages: number; chars: number; text: string }[] = [];

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const agent = specialistOf({ messages, options });
    if (agent) {
      const text = JSON.stringify(messages);
      this.specialistCalls.push({ agent, messages: messages.length, chars: text.length, text });
    }
    yield* super.stream(messages, options);
  }
}

const inbox = () => [
  mail({
    from: 'news@digest.example',
    subject: 'Weekly newsletter digest',
    listUnsubscribe: '<mailto:u@digest.example>',
  }),
  mail({ from: 'billing@shop.example', subject: 'Your receipt' }), // one cue: the billing specialist is unsure
  mail({ from: 'qa@customer.example', subject: 'Bug: crash on save' }),
  mail({ from: 'jo@synergia.example', subject: 'Strategic partnership opportunity' }), // no specialist covers it
];

describe('specialists in a run (offline model)', () => {
  it('routes each item by intent to its specialist, which decides it through the same gate; the audit and the trace show each pair', async () => {
    const model = new WatchedOfflineModel();
    fixture = await engineFixture({ messages: inbox(), model: () => model, workflowExtra: SPECIALISTS });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    expect(run.counts).toMatchObject({ acted: 2, deferred: 2 });
    const audit = await listAudit(fixture.store, { runId: run.id });
    const handed = audit.filter((e) => e.outcome === 'handed_off');
    expect(handed.map((e) => e.handoff)).toEqual([
      { from: 'executor', to: 'newsletters' },
      { from: 'executor', to: 'billing' },
      { from: 'executor', to: 'support' },
    ]);
    const acted = audit.filter((e) => e.outcome === 'acted');
    expect(acted.map((e) => [e.action, e.decided_by, e.agent])).toEqual([
      ['archive', 'model', 'newsletters'],
      ['file_ticket', 'model', 'support'],
    ]);
    for (const entry of acted) {
      const handoff = handed.find((h) => h.item_id === entry.item_id)!;
      expect(handoff.handoff!.to).toBe(entry.agent); // the specialist the item was handed to acted on it
    }

    // One question screen for the run: the billing specialist's doubt and the executor's, together.
    const pending = (await listPending(fixture.store)).sort((a, b) => a.subject.localeCompare(b.subject));
    expect(pending.map((d) => [d.subject, d.reason])).toEqual([
      ['Strategic partnership opportunity', 'low_confidence'],
      ['Your receipt', 'low_confidence'],
    ]);
    expect(new Set(pending.map((d) => d.interrupt_id)).size).toBe(1);
    expect(fixture.notices.filter((n) => n.kind === 'asked')).toHaveLength(1);
    expect(await fixture.folder('.Archive')).toHaveLength(1);
    expect(await fixture.store.list('tickets')).toHaveLength(1);

    const entries = (await readSession(fixture.store, run.id))!.entries;
    const items = handoffItems(entries);
    expect(handoffOccurred(items, 'executor', 'billing')).toBe(true);
    expect(handoffOccurred(items, 'executor', 'support')).toBe(true);
    expect(handoffOccurred(items, 'executor', 'newsletters')).toBe(true);
    expect(items.map((i) => i.type)).toEqual(Array(3).fill(['handoff_call', 'handoff_output']).flat());
    const billingCall = entries.find((e) => e.kind === 'handoff_call' && e.target === 'billing')!;
    const after = entries.slice(entries.indexOf(billingCall) + 1, entries.indexOf(billingCall) + 4);
    expect(after.map((e) => [e.kind, e.agent])).toEqual([
      ['handoff_output', undefined],
      ['model', 'billing'],
      ['tool', 'billing'],
    ]);
    // A settled item ends the specialist's turn: one model call per handoff.
    expect(model.specialistCalls.map((c) => c.agent)).toEqual(['newsletters', 'billing', 'support']);

    // The answers are carried out in the name of the agent that asked.
    for (const d of pending) await decide(fixture.deps, d.id, 'archive', null);
    const after2 = await listAudit(fixture.store, { runId: run.id });
    const byHuman = new Map(
      after2.filter((e) => e.decided_by === 'human').map((e) => [e.item_id, e.agent ?? 'executor']),
    );
    expect(byHuman).toEqual(
      new Map([
        [pending[0]!.item_id, 'executor'], // the partnership pitch: the executor asked
        [pending[1]!.item_id, 'billing'], // the receipt: billing asked
      ]),
    );
  });

  it('hands each specialist only the item it decides, so its calls cost the same for 3 items as for 30', async () => {
    const measure = async (n: number) => {
      const model = new WatchedOfflineModel();
      const f = await engineFixture({
        messages: Array.from({ length: n }, (_, i) =>
          mail({
            from: `news${i}@digest.example`,
            subject: `Weekly newsletter digest #${i}`,
            listUnsubscribe: '<mailto:u@digest.example>',
          }),
        ),
        model: () => model,
        workflowExtra: SPECIALISTS,
      });
      const run = await startRun(f.deps, 'inbox', manual);
      await f.cleanup();
      return { run, calls: model.specialistCalls };
    };
    const small = await measure(3);
    const large = await measure(30);

    expect(large.run.counts.acted).toBe(30);
    expect(large.calls).toHaveLength(30);
    for (const call of [...small.calls, ...large.calls]) {
      expect(call.messages).toBe(1); // a fresh history: the handed item only
      expect(new Set(call.text.match(/<m[\d.]+@test\.example>/g)).size).toBe(1); // no other item of the page
    }
    const max = (calls: typeof small.calls) => Math.max(...calls.map((c) => c.chars));
    expect(max(large.calls)).toBeLessThan(max(small.calls) * 1.05);
  });

  it('runs the workflow of docs/handoffs.md over the demo inbox with no LLM', async () => {
    const guide = await fs.readFile(new URL('../../docs/handoffs.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf('## Handoffs in a workflow'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    fixture = await engineFixture({ messages: [], model: () => new OfflineModel() });
    await fs.rm(fixture.maildir, { recursive: true });
    await createDemoMaildir(fixture.maildir);
    await saveWorkflow(
      fixture.store,
      parseWorkflow(yaml.replace('/path/to/Maildir', fixture.maildir), 'shared-inbox.yaml'),
    );

    const run = await startRun(fixture.deps, 'shared-inbox', manual);

    expect(run.status).toBe('waiting');
    const audit = await listAudit(fixture.store, { runId: run.id });
    const to = new Set(audit.flatMap((e) => (e.handoff ? [e.handoff.to] : [])));
    expect(to).toEqual(new Set(['billing', 'support', 'newsletters']));
    expect(audit.some((e) => e.outcome === 'acted' && e.agent === undefined)).toBe(true); // the executor kept the rest
    expect(await fixture.folder('.Trash')).toEqual([]);
    const subjects = (await listPending(fixture.store)).map((d) => d.subject).join('\n');
    expect(subjects).toMatch(/password/i); // the phishing look-alike is still never handled alone
  });
});

describe('specialists in a run (scripted model)', () => {
  it('leaves a workflow without specialists exactly as it was: no route_item, no specialist in the prompt', async () => {
    const seen: { tools: string[]; system: string }[] = [];
    const script = executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'clear' }));
    fixture = await engineFixture({
      messages: inbox(),
      model: () =>
        new ScriptedModel((results, input) => {
          seen.push({ tools: toolNames(input.options), system: systemText(input.options) });
          return script(results, input);
        }),
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('completed');
    expect(new Set(seen.map((s) => s.tools.join(',')))).toEqual(
      new Set(['recall_rules,fetch_items,read_item,submit_action,finish_batch']),
    );
    expect(seen[0]!.system).not.toMatch(/specialist|route_item/i);
    const audit = await listAudit(fixture.store, { runId: run.id });
    expect(audit.filter((e) => e.outcome === 'handed_off')).toEqual([]);
    expect(audit.every((e) => !('agent' in e) && !('handoff' in e))).toBe(true);
  });

  it('makes a handoff one-way: the executor cannot act on a handed item, nor a specialist on one it was not handed', async () => {
    let other = '';
    fixture = await engineFixture({
      messages: [
        mail({ from: 'billing@shop.example', subject: 'Invoice 7' }),
        mail({ from: 'ana@partner.example', subject: 'Lunch?' }),
      ],
      model: () =>
        new ScriptedModel(
          specialistsScript({
            executor: (item) => {
              if (item.subject === 'Lunch?') {
                other = item.id;
                return { action: 'draft_reply', confidence: 0.9, reasoning: 'a colleague' };
              }
              // Hands the invoice over, then tries to act on it anyway.
              return [{ intent: 'billing' }, { action: 'archive', confidence: 0.99, reasoning: 'mine too' }];
            },
            specialist: (_name, item, results) => {
              if (results.length === 0)
                // first, reach for the item it was not handed
                return {
                  toolCalls: [
                    { name: 'submit_action', input: { item_id: other, action: 'archive', confidence: 0.99 } },
                  ],
                };
              return {
                toolCalls: [
                  {
                    name: 'submit_action',
                    input: { item_id: item.id, action: 'archive', confidence: 0.9, reasoning: 'an invoice' },
                  },
                ],
              };
            },
          }),
        ),
      workflowExtra: SPECIALISTS,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('completed');
    const acted = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.outcome === 'acted');
    expect(acted.map((e) => [e.action, e.agent])).toEqual([
      ['archive', 'billing'], // the invoice, once, by the specialist it was handed to
      ['draft_reply', undefined], // the lunch note, by the executor
    ]);
    const tools = (await readSession(fixture.store, run.id))!.entries.filter((e) => e.kind === 'tool');
    const refused = tools.filter((e) => e.tool === 'submit_action' && e.status === 'cancelled');
    expect(refused.map((e) => [e.agent, e.output])).toEqual([
      ['billing', expect.stringContaining('was not handed to you')],
      [undefined, expect.stringContaining('was handed to billing')],
    ]);
  });

  it('asks the person about an item whose specialist ended without deciding it', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'billing@shop.example', subject: 'Invoice 9' })],
      model: () =>
        new ScriptedModel(
          specialistsScript({
            executor: () => ({ intent: 'billing' }),
            specialist: () => ({ text: 'This one looks odd to me.' }),
          }),
        ),
      workflowExtra: SPECIALISTS,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    expect(await listPending(fixture.store)).toEqual([
      expect.objectContaining({
        subject: 'Invoice 9',
        suggested_action: 'skip',
        confidence: 0,
        reason: 'undecided',
        reasoning: 'billing ended without deciding this item: This one looks odd to me.',
        agent: 'billing',
      }),
    ]);
    expect(await fixture.inbox()).toHaveLength(1); // nothing was done to it
  });

  it('asks the person about an item whose specialist failed (its model is down), having done nothing', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'billing@shop.example', subject: 'Invoice 10' })],
      model: () =>
        new ScriptedModel(
          specialistsScript({
            executor: () => ({ intent: 'billing' }),
            specialist: () => {
              throw new Error('503 Service Unavailable');
            },
          }),
        ),
      workflowExtra: SPECIALISTS,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    expect(await listPending(fixture.store)).toEqual([
      expect.objectContaining({
        subject: 'Invoice 10',
        suggested_action: 'skip',
        reason: 'undecided',
        reasoning: expect.stringContaining(
          'billing failed before deciding this item: 503 Service Unavailable',
        ),
      }),
    ]);
    expect(fixture.events).toContainEqual(
      expect.objectContaining({
        kind: 'failed',
        text: expect.stringContaining('billing could not decide Invoice 10'),
      }),
    );
    expect(await fixture.inbox()).toHaveLength(1); // nothing was done to it
  });

  it('refuses an intent no specialist takes, and nothing moves', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'x@y.example', subject: 'Something' })],
      model: () =>
        new ScriptedModel(
          specialistsScript({
            executor: () => [
              { intent: 'legal' },
              { action: 'archive', confidence: 0.9, reasoning: 'then mine' },
            ],
            specialist: () => ({ text: 'never called' }),
          }),
        ),
      workflowExtra: SPECIALISTS,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    const audit = await listAudit(fixture.store, { runId: run.id });
    expect(audit.filter((e) => e.outcome === 'handed_off')).toEqual([]);
    expect(audit.filter((e) => e.outcome === 'acted').map((e) => e.agent)).toEqual([undefined]);
    const route = (await readSession(fixture.store, run.id))!.entries.find(
      (e) => e.kind === 'tool' && e.tool === 'route_item',
    );
    expect(route).toMatchObject({ status: 'error' });
  });
});
