import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import {
  EMBEDDED_INTERRUPT,
  JsonFileStore,
  type GateAnswer,
  type GateQuestion,
} from '../../shared/embedded/index.ts';
import { addRule, listRules } from '../../shared/memory/rules-repository.ts';
import { spyOnStore } from '../support/store-spy.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { deletion, hostAgent, ticket, toolResults } from './host-agent.ts';

const approveAll = async (questions: readonly GateQuestion[]) =>
  questions.map((q) => ({ id: q.id, action: 'approve' as const }));

let dirs: string[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function tempStore(): Promise<{ dir: string; store: JsonFileStore }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-embedded-'));
  dirs.push(dir);
  return { dir, store: new JsonFileStore(dir) };
}

describe('the gate embedded in a host agent', () => {
  it('lets a confident call to a reversible tool run without asking', async () => {
    const ask = jest.fn(approveAll);
    const { agent, gate, bodies } = hostAgent([ticket('Broken login', 0.95)], { ask });

    const result = await agent.invoke('file what needs filing');

    expect(result.stopReason).toBe('endTurn');
    expect(ask).not.toHaveBeenCalled();
    expect(bodies.create_ticket).toBe(1);
    expect(gate.records).toMatchObject([{ tool: 'create_ticket', outcome: 'acted', decided_by: 'model' }]);
  });

  it('asks about an unsure call and runs it only after "approve"', async () => {
    const asked: GateQuestion[][] = [];
    const { agent, gate, bodies } = hostAgent([ticket('Maybe a bug', 0.4)], {
      ask: async (questions) => {
        asked.push([...questions]);
        expect(bodies.create_ticket).toBe(0); // asked before the body, never after
        return [{ id: questions[0]!.id, action: 'approve', note: 'yes, a real bug' }];
      },
    });

    await agent.invoke('file what needs filing');

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject([
      { tool: 'create_ticket', confidence: 0.4, reason: 'low_confidence', input: { title: 'Maybe a bug' } },
    ]);
    expect(bodies.create_ticket).toBe(1);
    expect(gate.records).toMatchObject([
      { outcome: 'acted', decided_by: 'human', asked_because: 'low_confidence', note: 'yes, a real bug' },
    ]);
  });

  it('never runs an unsure call the person skips, and tells the agent it was not allowed', async () => {
    const { agent, gate, bodies } = hostAgent([ticket('Maybe a bug', 0.4)], {
      ask: async (questions) => questions.map((q) => ({ id: q.id, action: 'skip' })),
    });

    await agent.invoke('file what needs filing');

    expect(bodies.create_ticket).toBe(0);
    expect(toolResults(agent)).toEqual([
      {
        status: 'error',
        text: expect.stringMatching(/^skipped: create_ticket was not allowed \(the person said skip\)/),
      },
    ]);
    expect(gate.records).toMatchObject([
      { outcome: 'skipped', decided_by: 'human', skipped_because: 'person' },
    ]);
  });

  it('always asks before an irreversible tool, however sure the model is', async () => {
    const ask = jest.fn(approveAll);
    const { agent, bodies } = hostAgent([deletion('old-repo', 0.99)], { ask });

    await agent.invoke('tidy up');

    expect(ask).toHaveBeenCalledTimes(1);
    expect(ask.mock.calls[0]![0]).toMatchObject([
      { tool: 'delete_repo', reason: 'irreversible', irreversible: true },
    ]);
    expect(bodies.delete_repo).toBe(1);
  });

  it('raises one question set for all the unsure calls of a turn, and lets the sure one run', async () => {
    const ask = jest.fn(async (questions: readonly GateQuestion[]) => [
      { id: questions.find((q) => q.tool === 'delete_repo')!.id, action: 'approve' },
    ]);
    const { agent, bodies, gate } = hostAgent(
      [ticket('Sure thing', 0.9), ticket('Not sure', 0.3), deletion('old-repo', 0.99)],
      { ask },
    );

    await agent.invoke('tidy up');

    expect(ask).toHaveBeenCalledTimes(1);
    expect(ask.mock.calls[0]![0].map((q) => q.tool).sort()).toEqual(['create_ticket', 'delete_repo']);
    expect(bodies).toEqual({ create_ticket: 1, delete_repo: 1 }); // the unanswered ticket was skipped
    expect(gate.records.map((r) => [r.tool, r.outcome, r.skipped_because]).sort()).toEqual([
      ['create_ticket', 'acted', null],
      ['create_ticket', 'skipped', 'no_answer'],
      ['delete_repo', 'acted', null],
    ]);
  });

  it('counts a malformed, missing or out-of-range confidence as 0: the call is asked about', async () => {
    const ask = jest.fn(async (_questions: readonly GateQuestion[]) => [] as GateAnswer[]);
    const { agent, bodies } = hostAgent(
      [ticket('a', '0.95'), ticket('b', Number.NaN), ticket('c', 1.5), ticket('d', undefined)],
      { ask },
    );

    await agent.invoke('go');

    expect(ask.mock.calls[0]![0]).toHaveLength(4);
    expect(ask.mock.calls[0]![0].every((q) => q.confidence === 0)).toBe(true);
    expect(bodies.create_ticket).toBe(0);
  });

  describe('when the person cannot be reached, every deferred call is skipped', () => {
    const cases: [string, Parameters<typeof hostAgent>[1], string][] = [
      [
        'ask throws',
        {
          ask: async () => {
            throw new Error('slack is down');
          },
        },
        'ask_failed',
      ],
      ['ask hangs past its timeout', { ask: () => new Promise(() => {}), askTimeoutMs: 50 }, 'ask_timeout'],
      ['ask returns nothing', { ask: async () => undefined }, 'no_answer'],
      ['ask returns no answers', { ask: async () => [] }, 'no_answer'],
      [
        'ask answers another question',
        { ask: async () => [{ id: 'not-asked', action: 'approve' }] },
        'no_answer',
      ],
    ];
    it.each(cases)('%s', async (_name, options, cause) => {
      const { agent, gate, bodies } = hostAgent([ticket('Maybe', 0.2), deletion('old-repo', 0.99)], options);

      const result = await agent.invoke('go');

      expect(result.stopReason).toBe('endTurn'); // the agent carries on: it was told, not paused
      expect(bodies).toEqual({ create_ticket: 0, delete_repo: 0 });
      const results = toolResults(agent);
      expect(results).toHaveLength(2);
      for (const r of results) expect(r.text).toMatch(/^skipped: .* was not allowed .*nothing was done/);
      expect(gate.records.map((r) => [r.outcome, r.skipped_because, r.decided_by])).toEqual([
        ['skipped', cause, null],
        ['skipped', cause, null],
      ]);
    });

    it('aborts the signal it gave a hanging ask', async () => {
      let signal: AbortSignal | undefined;
      const { agent } = hostAgent([ticket('Maybe', 0.2)], {
        ask: (_q, s) => {
          signal = s;
          return new Promise(() => {});
        },
        askTimeoutMs: 30,
      });
      await agent.invoke('go');
      expect(signal?.aborted).toBe(true);
    });
  });

  it('without ask, pauses the agent on one interrupt and acts on the answers it is resumed with', async () => {
    const { agent, bodies, gate } = hostAgent([ticket('Maybe', 0.2), deletion('old-repo', 0.99)], {});

    const paused = await agent.invoke('go');

    expect(paused.stopReason).toBe('interrupt');
    expect(paused.interrupts).toHaveLength(1);
    const interrupt = paused.interrupts![0]!;
    expect(interrupt.name.startsWith(`${EMBEDDED_INTERRUPT}:`)).toBe(true);
    const questions = (interrupt.reason as { questions: { id: string; tool: string }[] }).questions;
    expect(questions.map((q) => q.tool)).toEqual(['create_ticket', 'delete_repo']);
    expect(bodies).toEqual({ create_ticket: 0, delete_repo: 0 });

    const deleteId = questions.find((q) => q.tool === 'delete_repo')!.id;
    const resumed = await agent.invoke([
      {
        interruptResponse: {
          interruptId: interrupt.id,
          response: { answers: [{ id: deleteId, action: 'approve' }] },
        },
      },
    ]);

    expect(resumed.stopReason).toBe('endTurn');
    expect(bodies).toEqual({ create_ticket: 0, delete_repo: 1 });
    expect(gate.records.map((r) => [r.tool, r.outcome]).sort()).toEqual([
      ['create_ticket', 'skipped'],
      ['delete_repo', 'acted'],
    ]);
  });

  it('a paused agent resumes from a snapshot in a new agent with a new gate, and acts only on the approved call', async () => {
    const calls = [ticket('Maybe', 0.2), deletion('old-repo', 0.99)];
    const first = hostAgent(calls, {});
    const paused = await first.agent.invoke('go');
    expect(paused.stopReason).toBe('interrupt');
    const stored = JSON.parse(JSON.stringify(first.agent.takeSnapshot({ preset: 'session' })));

    const second = hostAgent(calls, {}); // another process: nothing of the first survives but the snapshot
    second.agent.loadSnapshot(stored);
    const interrupt = paused.interrupts![0]!;
    const ticketId = (interrupt.reason as { questions: { id: string; tool: string }[] }).questions.find(
      (q) => q.tool === 'create_ticket',
    )!.id;
    await second.agent.invoke([
      {
        interruptResponse: {
          interruptId: interrupt.id,
          response: { answers: [{ id: ticketId, action: 'approve' }] },
        },
      },
    ]);

    expect(first.bodies).toEqual({ create_ticket: 0, delete_repo: 0 });
    expect(second.bodies).toEqual({ create_ticket: 1, delete_repo: 0 });
    expect(second.gate.records.map((r) => [r.tool, r.outcome, r.decided_by]).sort()).toEqual([
      ['create_ticket', 'acted', 'human'],
      ['delete_repo', 'skipped', null],
    ]);
  });

  it('asks again in a later turn: each turn has its own question set', async () => {
    const ask = jest.fn(approveAll);
    const { agent, bodies } = hostAgent([ticket('First', 0.2)], { ask }, [[ticket('Second', 0.2)]]);

    await agent.invoke('go');

    expect(ask).toHaveBeenCalledTimes(2);
    expect(ask.mock.calls.map((c) => c[0][0]!.input.title)).toEqual(['First', 'Second']);
    expect(bodies.create_ticket).toBe(2);
  });

  it('refuses a set-up it cannot honour, with one line saying what to fix', () => {
    expect(() => hostAgent([], { tools: {} })).toThrow(/at least one tool/);
    expect(() => hostAgent([], { threshold: 7 })).toThrow('threshold must be a number from 0 to 1, not 7');
    expect(() => hostAgent([], { askTimeoutMs: 0 })).toThrow(/askTimeoutMs must be a positive/);
  });
});

describe("rules in the host's store", () => {
  it('a covering rule lets an unsure call run without asking; an irreversible tool still asks', async () => {
    const { store } = await tempStore();
    const rule = await addRule(store, {
      workflowId: 'embedded',
      match: { keywords: ['login', 'broken'] },
      action: 'create_ticket',
      note: 'login bugs always get a ticket',
    });
    await addRule(store, {
      workflowId: 'embedded',
      match: { keywords: ['archive', 'repo'] },
      action: 'delete_repo',
      note: null,
    });
    const ask = jest.fn(async (_questions: readonly GateQuestion[]) => [] as GateAnswer[]);
    const spy = spyOnStore(store);
    const { agent, bodies, gate } = hostAgent(
      [ticket('Broken login page', 0.3), ticket('Broken checkout', 0.3), deletion('archive repo', 0.99)],
      { ask, store: spy.store },
    );

    await agent.invoke('go');
    expect(spy.fullReads).toEqual([]); // the rules are read by the keys of what they match, never all

    expect(ask.mock.calls[0]![0].map((q) => q.input.title ?? q.input.repo)).toEqual([
      'Broken checkout',
      'archive repo',
    ]);
    expect(bodies).toEqual({ create_ticket: 1, delete_repo: 0 });
    expect(gate.records.filter((r) => r.outcome === 'acted')).toMatchObject([
      { tool: 'create_ticket', decided_by: 'memory', rule_id: rule.id },
    ]);
    const audit = await listAudit(store);
    expect(audit.map((e) => [e.outcome, e.action, e.decided_by]).sort()).toEqual([
      ['acted', 'create_ticket', 'memory'],
      ['declined', 'skip', null],
      ['declined', 'skip', null],
    ]);
  });

  it('a skip rule cancels the call before its body', async () => {
    const { store } = await tempStore();
    await addRule(store, {
      workflowId: 'embedded',
      match: { keywords: ['spam', 'report'] },
      action: 'skip',
      note: null,
    });
    const { agent, bodies } = hostAgent([ticket('Spam report', 0.99)], { store, ask: approveAll });

    await agent.invoke('go');

    expect(bodies.create_ticket).toBe(0);
    expect(toolResults(agent)[0]!.text).toMatch(/^skipped: a rule/);
  });

  it('the Learner turns an answer with a note into a narrow rule, and the next such call is not asked', async () => {
    const { store } = await tempStore();
    const ask = jest.fn(async (questions: readonly GateQuestion[]) =>
      questions.map((q) => ({
        id: q.id,
        action: 'approve',
        note: 'reports about an invoice mismatch always get a ticket',
      })),
    );
    const options = { ask, store, learner: new OfflineModel() };
    const first = hostAgent([ticket('Invoice mismatch for March', 0.3)], options);
    await first.agent.invoke('go');

    const rules = await listRules(store);
    expect(rules).toMatchObject([{ source: 'learned', action: 'create_ticket', workflow_id: 'embedded' }]);
    expect(rules[0]!.match).toEqual({ keywords: expect.arrayContaining(['invoice', 'mismatch']) });

    const second = hostAgent(
      [ticket('Invoice mismatch for April', 0.3), ticket('Printer on fire', 0.3)],
      options,
    );
    await second.agent.invoke('go');
    expect(ask).toHaveBeenCalledTimes(2);
    expect(ask.mock.calls[1]![0].map((q) => q.input.title)).toEqual(['Printer on fire']);
    expect(second.gate.records.find((r) => r.decided_by === 'memory')).toBeDefined();
  });
});

describe("the host's credentials", () => {
  it('are never copied into the store or the logs', async () => {
    const { dir, store } = await tempStore();
    const secret = 'ghp_HOSTSECRET1234567890';
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      jest
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) => void written.push(args.join(' ')));

    const { agent, bodies } = hostAgent(
      [ticket('Broken login', 0.3, { token_hint: 'uses the host token' }), deletion('old', 0.99)],
      {
        store,
        learner: new OfflineModel(),
        ask: async (q) =>
          q.map((x) => ({ id: x.id, action: 'approve', note: 'broken login means a ticket' })),
      },
      [],
      secret,
    );
    await agent.invoke('go');
    jest.restoreAllMocks();

    expect(bodies).toEqual({ create_ticket: 1, delete_repo: 1 });
    const files = await fs.readdir(dir, { recursive: true });
    const stored = (
      await Promise.all(
        files.map(async (f) => {
          const p = path.join(dir, f);
          return (await fs.stat(p)).isFile() ? fs.readFile(p, 'utf8') : '';
        }),
      )
    ).join('\n');
    expect(stored).toContain('create_ticket'); // the audit is there...
    expect(stored).not.toContain(secret); // ...and the credential is not
    expect(written.join('\n')).not.toContain(secret);
  });
});
