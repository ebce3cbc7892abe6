/**
 * The run lifecycle's metrics port: the points where a run's counts change call it.
 * Locally nothing is recorded (the counts are on the run record and in `handoff stats`);
 * on Lambda a host installs a sink (shared/aws/observability.ts) that writes CloudWatch
 * embedded-metric-format through Powertools Metrics.
 */

/** What is counted, and the one timing. */
export type RunMetric =
  'RunsStarted' | 'ItemsActed' | 'ItemsAsked' | 'ItemsByMemory' | 'RunsFailed' | 'ItemLatency';

/** Receives each data point: a count, or milliseconds for ItemLatency. */
export type MetricsSink = (metric: RunMetric, value: number) => void;

let processSink: MetricsSink | undefined;

/** Sends the process's metrics to `sink` (undefined: nothing is recorded). */
export function setMetricsSink(sink: MetricsSink | undefined): void {
  processSink = sink;
}

/** Records `value` of `metric` (a count of 1 by default) where a sink is installed. */
export function recordMetric(metric: RunMetric, value = 1): void {
  if (value > 0 || metric === 'ItemLatency') processSink?.(metric, value);
}
