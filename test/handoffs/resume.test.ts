import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { tool } from '@strands-agents/sdk';
import {
  HandoffConfigError,
  handoffs,
  resumeWithHandoffs,
  runWithHandoffs,
} from '../../shared/handoffs/index.ts';
import { buildRefundAgents } from './fixtures/refund-agents.ts';
import { say, scripted } from './support.ts';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('./fixtures/resume-process.ts', import.meta.url));

async function processStep(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', fixture, ...args], {
    cwd: path.resolve(path.dirname(fixture), '../../..'),
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('a handoff that pauses in the target resumes in another process', () => {
  it.each([
    ['yes', 'Refunded order 42.', ['42']],
    ['no', 'No refund: the person declined this refund', []],
  ])('approval %s: lands in the target agent and finishes there', async (answer, output, issued) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoffs-resume-'));
    const file = path.join(dir, 'state.json');

    const first = await processStep('start', file);
    expect(first).toMatchObject({
      stopReason: 'interrupt',
      lastAgent: 'Refunds',
      interrupts: [{ name: 'approve_refund', reason: { orderId: '42' } }],
      items: ['handoff_call', 'handoff_output'],
      issued: [],
    });
    const saved = JSON.parse(await fs.readFile(file, 'utf8')) as { state: { currentAgent: string } };
    expect(saved.state.currentAgent).toBe('Refunds');

    const second = await processStep('resume', file, answer);
    expect(second.pid).not.toBe(first.pid);
    expect(second).toMatchObject({
      stopReason: 'endTurn',
      lastAgent: 'Refunds',
      output,
      items: ['handoff_call', 'handoff_output', 'tool_call', 'tool_output', 'message'],
      handedOff: true,
      triageCalls: 0, // the resumed run never went back to the source
      refundsCalls: 1, // only the turn after the tool result: the paused turn was not replayed
      issued,
    });
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('round-trips the state through JSON in-process too, and refuses an unknown agent', async () => {
    const a = buildRefundAgents();
    const paused = await runWithHandoffs(a.triage.agent, 'refund 42');
    const state = JSON.parse(JSON.stringify(paused.state)) as NonNullable<typeof paused.state>;
    expect(state).toMatchObject({ version: 1, currentAgent: 'Refunds', handoffCount: 1, pending: null });

    const b = buildRefundAgents();
    const responses = [{ interruptId: paused.interrupts[0]!.id, response: { approved: true } }];
    await expect(resumeWithHandoffs({ Triage: b.triage.agent }, state, responses)).rejects.toBeInstanceOf(
      HandoffConfigError,
    );
    const done = await resumeWithHandoffs({ Refunds: b.refunds.agent }, state, responses);
    expect(done.lastAgent).toBe(b.refunds.agent);
    expect(done.state).toBeUndefined();
    expect(b.issued).toEqual(['42']);
    expect(a.issued).toEqual([]);
  });

  it('carries out a transfer claimed in the very turn that paused', async () => {
    const build = () => {
      const billing = scripted('Billing', [say('billing took over')]);
      const confirm = tool({
        name: 'confirm_identity',
        description: 'Ask the person to confirm who they are.',
        callback: (_input, context) => context!.interrupt<string>({ name: 'confirm' }),
      });
      const desk = scripted(
        'Desk',
        [
          {
            toolCalls: [
              { name: 'transfer_to_billing', input: {} },
              { name: 'confirm_identity', input: {} },
            ],
          },
        ],
        { tools: [confirm], toolExecutor: 'sequential', plugins: [handoffs([billing.agent])] },
      );
      return { billing, desk };
    };
    const first = build();
    const paused = await runWithHandoffs(first.desk.agent, 'bill me');
    expect(paused.stopReason).toBe('interrupt');
    expect(paused.lastAgent).toBe(first.desk.agent);
    expect(paused.state?.pending).toMatchObject({ toolName: 'transfer_to_billing' });

    const second = build();
    const state = JSON.parse(JSON.stringify(paused.state)) as NonNullable<typeof paused.state>;
    const done = await resumeWithHandoffs({ Desk: second.desk.agent }, state, [
      { interruptId: paused.interrupts[0]!.id, response: 'it is me' },
    ]);
    expect(done.lastAgent).toBe(second.billing.agent);
    expect(done.output).toBe('billing took over');
    expect(second.desk.model.calls).toHaveLength(0);
    expect(done.newItems.map((i) => i.type)).toEqual([
      'handoff_call',
      'tool_call',
      'handoff_output',
      'tool_output',
      'message',
    ]);
  });
});
