import { describe, expect, it } from '@jest/globals';
import { createLog, type LogFields, type LogLevel } from '../../shared/logging/log.ts';
import { recordMetric, setMetricsSink, type RunMetric } from '../../shared/logging/metrics.ts';

describe('the product log', () => {
  it('locally writes one human-readable line per entry, ids left out', () => {
    const lines: string[] = [];
    const log = createLog({ write: (l) => lines.push(l), debug: () => false });
    log.warn('run r1: the resume dispatch failed\n  (timeout)', { run_id: 'r1' });
    log.debug('not shown');
    expect(lines).toEqual(['handoff: run r1: the resume dispatch failed (timeout)']);
  });

  it('with a structured sink (Lambda) hands it the level, the message and the ids, and writes no line', () => {
    const lines: string[] = [];
    const entries: [LogLevel, string, LogFields][] = [];
    const log = createLog({
      write: (l) => lines.push(l),
      debug: () => true,
      sink: () => (level, message, fields) => entries.push([level, message, fields]),
    });
    log.info('executor step of run r1: waiting', { run_id: 'r1', workflow_id: 'inbox' });
    log.error('boom');
    log.debug('sdk: detail');
    expect(entries).toEqual([
      ['info', 'executor step of run r1: waiting', { run_id: 'r1', workflow_id: 'inbox' }],
      ['error', 'boom', {}],
      ['debug', 'sdk: detail', {}],
    ]);
    expect(lines).toEqual([]);
  });
});

describe('the metrics port', () => {
  it('records nothing without a sink, and counts and timings with one', () => {
    recordMetric('RunsStarted'); // no sink: a no-op
    const seen: [RunMetric, number][] = [];
    setMetricsSink((metric, value) => seen.push([metric, value]));
    try {
      recordMetric('RunsStarted');
      recordMetric('ItemsAsked', 0); // nothing asked: no data point
      recordMetric('ItemsAsked', 3);
      recordMetric('ItemLatency', 0);
    } finally {
      setMetricsSink(undefined);
    }
    expect(seen).toEqual([
      ['RunsStarted', 1],
      ['ItemsAsked', 3],
      ['ItemLatency', 0],
    ]);
  });
});
