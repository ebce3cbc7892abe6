/** The inspector's trace and the decision screen's inert message body, as pure functions. */
import { describe, expect, it } from '@jest/globals';
import type { AuditEntry } from '../../shared/records/audit.ts';
import type { FeedEvent } from '../../shared/events/feed.ts';
import { EMPTY_COUNTS, type Run } from '../../shared/records/runs.ts';
import { realHost, renderBody } from '../../shared/web/pages/message.ts';
import { buildTrace, graphState } from '../../shared/web/pages/trace.ts';

const run = (status: Run['status']): Run => ({
  id: 'run_1',
  version: 1,
  workflow_id: 'inbox',
  status,
  trigger: { kind: 'manual', detail: null },
  counts: { ...EMPTY_COUNTS },
  interrupt_id: null,
  dispatch: null,
  snapshot: null,
  error: null,
  owner: null,
  started_at: '2026-01-01T10:00:00.000Z',
  finished_at: null,
});

let seq = 0;
const event = (kind: FeedEvent['kind'], at: string, data: Record<string, unknown> = {}): FeedEvent => ({
  seq: ++seq,
  channel: 'run_1',
  kind,
  text: kind,
  data,
  at: `2026-01-01T10:00:${at}Z`,
});

const audit = (at: string, over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: `aud_${at}`,
  run_id: 'run_1',
  workflow_id: 'inbox',
  item_id: '<m1@x.example>',
  outcome: 'acted',
  action: 'archive',
  decided_by: 'model',
  confidence: 0.9,
  reasoning: 'a newsletter',
  note: null,
  rule_id: null,
  detail: 'archived to .Archive',
  at: `2026-01-01T10:00:${at}Z`,
  ...over,
});

describe('the run trace', () => {
  it('merges feed events and audit records by time, one row per tool call with its timing', () => {
    const rows = buildTrace(
      [
        event('node_start', '00.100', { node: 'executor' }),
        event('tool_start', '00.200', { tool: 'submit_action' }),
        event('tool_end', '00.400', { tool: 'submit_action', ms: 200 }),
        event('node_end', '00.500', { node: 'executor', ms: 400 }),
      ],
      [audit('00.300')],
    );
    expect(rows.map((r) => [r.kind, r.text, r.ms])).toEqual([
      ['node start', 'node_start', null],
      ['tool', 'submit_action', 200],
      ['record', 'acted: archive by model at 0.90', null],
      ['node end', 'node_end', 400],
    ]);
    expect(rows[2]!.detail).toBe('item <m1@x.example> · reasoning: a newsletter · archived to .Archive');
  });

  it('after a restart (no feed) rebuilds the trace from the audit log and the graph from the run', () => {
    const rows = buildTrace([], [audit('01.000', { note: 'keep these', decided_by: 'human' })]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail).toContain('note: “keep these”');
    expect(graphState(run('completed'), [])).toEqual({
      live: false,
      nodes: {
        trigger: { state: 'done', ms: null },
        executor: { state: 'done', ms: null },
        completer: { state: 'done', ms: null },
      },
    });
    expect(graphState(run('waiting'), []).nodes.executor.state).toBe('paused');
  });

  it('follows the feed: the pause, the resume, the end', () => {
    const events = [
      event('node_start', '00.000', { node: 'trigger' }),
      event('node_end', '00.100', { node: 'trigger', ms: 100 }),
      event('node_start', '00.100', { node: 'executor' }),
      event('asked', '00.300'),
    ];
    expect(graphState(run('waiting'), events).nodes).toMatchObject({
      trigger: { state: 'done', ms: 100 },
      executor: { state: 'paused' },
      completer: { state: 'idle' },
    });
    events.push(event('resumed', '05.000'), event('node_start', '05.010', { node: 'completer' }));
    expect(graphState(run('running'), events).nodes.completer.state).toBe('running');
  });
});

describe('the message body', () => {
  const render = async (text: string) => String(await renderBody(text));

  it('escapes everything and makes no element from the mail', async () => {
    const out = await render('<script>x()</script><img src="https://evil.example/a.png" onerror="y()">');
    expect(out).not.toMatch(/<script|<img|<a\s/);
    expect(out).toContain('&lt;script&gt;x()&lt;/script&gt;');
    expect(out).toContain('goes to </span>evil.example');
  });

  it("shows each link's real host and calls out text that names another host", async () => {
    const out = await render('Log in at https://paypal.com/login\n[https://paypa1.example/login].');
    expect(out).toContain('the text says paypal.com, the link goes to paypa1.example');
    expect(await render('see https://xn--pypal-4ve.example/')).toContain('international look-alike host');
    expect(await render('https://a.example/x. And https://b.example')).not.toContain('the text says');
    expect(realHost('https://bücher.example/')).toBe('xn--bcher-kva.example');
    expect(realHost('https://[::1')).toBeNull();
  });
});

describe('node states that are true', () => {
  it('a waiting run whose feed lost its first events still shows its trigger done', () => {
    // A 1,000-item run: the feed's window kept only the executor's latest events.
    const events = [
      event('tool_start', '09.000', { tool: 'submit_action' }),
      event('tool_end', '09.010', { tool: 'submit_action', ms: 10 }),
      event('asked', '09.500'),
    ];
    expect(graphState(run('waiting'), events).nodes).toMatchObject({
      trigger: { state: 'done' },
      executor: { state: 'paused' },
      completer: { state: 'idle' },
    });
  });

  it('a node after one that started has run; a completed run has done every node', () => {
    const events = [event('node_start', '05.010', { node: 'completer' })];
    expect(graphState(run('running'), events).nodes).toMatchObject({
      trigger: { state: 'done' },
      executor: { state: 'done' },
      completer: { state: 'running' },
    });
    const ended = [event('tool_end', '05.000', { tool: 'finish_batch', ms: 3 })];
    expect(Object.values(graphState(run('completed'), ended).nodes).map((n) => n.state)).toEqual([
      'done',
      'done',
      'done',
    ]);
  });

  it('a running run with counts has passed its trigger, even with no feed', () => {
    const counting = { ...run('running'), counts: { ...EMPTY_COUNTS, acted: 3 } };
    expect(graphState(counting, []).nodes).toMatchObject({
      trigger: { state: 'done' },
      executor: { state: 'running' },
    });
    expect(graphState(run('running'), []).nodes.trigger.state).toBe('unknown');
  });

  it('a failed run leaves the node that was running failed and the ones after it not started', () => {
    const events = [
      event('node_start', '00.000', { node: 'trigger' }),
      event('node_end', '00.100', { node: 'trigger', ms: 100 }),
      event('node_start', '00.100', { node: 'executor' }),
    ];
    expect(graphState(run('failed'), events).nodes).toMatchObject({
      trigger: { state: 'done', ms: 100 },
      executor: { state: 'failed' },
      completer: { state: 'idle' },
    });
  });
});
