/**
 * Observability on Lambda, the way Lambda users expect it: Powertools for AWS Lambda's
 * Logger (structured JSON, with `run_id`, `workflow_id` and `decision_id` as keys),
 * Tracer (X-Ray) and Metrics (CloudWatch embedded metric format), worn by every handler
 * as middy middlewares. This is the only file that imports Powertools: the product's log
 * and metrics ports (shared/logging/) are pointed at it, so the domain code stays as it is.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { setLogSink, type LogFields } from '../logging/log.ts';
import { setMetricsSink } from '../logging/metrics.ts';

/** The service name on every log line, trace and metric. */
export const SERVICE_NAME = 'handoff';
/** The CloudWatch namespace of the run metrics. */
export const METRICS_NAMESPACE = 'Handoff';

// One of each per process (a Lambda container runs one handler): the product's log and
// metrics ports write through them, and each handler's middlewares flush them.
const logger = new Logger({ serviceName: SERVICE_NAME });
const tracer = new Tracer({ serviceName: SERVICE_NAME });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
setLogSink((level, message, fields) => logger[level](message, { ...fields }));
setMetricsSink((metric, value) =>
  metrics.addMetric(metric, metric === 'ItemLatency' ? MetricUnit.Milliseconds : MetricUnit.Count, value),
);

export interface Observability {
  logger: Logger;
  tracer: Tracer;
  metrics: Metrics;
  /** The middlewares every handler wears, outermost first. */
  middlewares: MiddlewareObj[];
}

/**
 * Powertools for function `fn`: the Lambda context and the event's ids on every log
 * line, a trace of the invocation, and the run metrics flushed as EMF when it ends
 * (with a cold-start metric). Importing this module points the product's log and
 * metrics ports at Powertools.
 */
export function observability(fn: string): Observability {
  return {
    logger,
    tracer,
    metrics,
    middlewares: [
      injectLambdaContext(logger, { resetKeys: true }),
      appendRunKeys(logger, fn),
      captureLambdaHandler(tracer),
      logMetrics(metrics, { captureColdStartMetric: true }),
    ],
  };
}

/** Puts the ids the event names on every line of the invocation (cleared after it). */
function appendRunKeys(logger: Logger, fn: string): MiddlewareObj {
  return {
    before: (request) => {
      logger.appendKeys({ handler: fn, ...idsOf(request.event) });
    },
  };
}

const ID = /^[\w.:@#-]{1,200}$/;
const PATH_IDS: [RegExp, keyof LogFields][] = [
  [/^\/decide\/([^/]+)/, 'decision_id'],
  [/^\/api\/decisions\/([^/]+)/, 'decision_id'],
  [/^\/api\/runs\/([^/]+)/, 'run_id'],
  [/^\/(?:api\/)?events\/([^/]+)/, 'run_id'],
  [/^\/api\/workflows\/([^/]+)/, 'workflow_id'],
  [/^\/hooks\/([^/]+)/, 'workflow_id'],
];

/**
 * The run, workflow or decision an event is about: a step's `detail`, a schedule's input,
 * a failure record's request payload, or an HTTP path. Anything else names none.
 */
export function idsOf(event: unknown): LogFields {
  const fields: LogFields = {};
  const take = (source: unknown) => {
    if (typeof source !== 'object' || source === null) return;
    for (const key of ['run_id', 'workflow_id', 'decision_id'] as const) {
      const value = (source as Record<string, unknown>)[key];
      if (typeof value === 'string' && ID.test(value)) fields[key] ??= value;
    }
  };
  const e = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
  take(e.detail);
  take(e);
  // A failure record, as the destination delivers it or inside an EventBridge envelope.
  for (const record of [e, e.detail] as (Record<string, unknown> | undefined)[]) {
    const payload = record?.requestPayload as Record<string, unknown> | undefined;
    take(payload?.detail);
    take(payload);
  }
  const rawPath = typeof e.rawPath === 'string' ? e.rawPath : undefined;
  for (const [pattern, key] of rawPath ? PATH_IDS : []) {
    const id = decoded(pattern.exec(rawPath!)?.[1]);
    if (id && ID.test(id)) fields[key] ??= id;
  }
  return fields;
}

function decoded(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined; // a malformed escape names nothing
  }
}
