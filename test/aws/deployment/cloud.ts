/**
 * What AWS does around the functions, from the template: EventBridge's rules (events routed
 * to their targets, scheduled rules fired), Scheduler's firings (the schedules schedule-sync
 * made, invoked with the scheduler role's permission), Lambda's asynchronous invocation
 * (retries, then the on-failure destination, with the failing function's own permission to
 * invoke it) and CloudWatch's alarms (alarms.ts). API Gateway is api-gateway.ts.
 */
import { randomUUID } from 'node:crypto';
import type { FunctionName } from '../../../lib/functions.ts';
import { alarmContext, alarmsOf, resourcePolicies, serviceAllows, type AlarmSpec } from './alarms.ts';
import { ApiGateway, type Caller } from './api-gateway.ts';
import type { AwsGateway, Principal, PutEvent } from './gateway.ts';
import { allows } from './iam.ts';
import { Container, type Network, type Outcome } from './runtime.ts';
import { ACCOUNT, REGION, type Deployment, type DeployedFunction } from './template.ts';

export type { Caller } from './api-gateway.ts';

/** An asynchronous invocation that failed every try, and where it went. */
export interface FailedInvocation {
  fn: FunctionName;
  error: string;
  destination: string | undefined;
}

export class Cloud {
  private readonly containers = new Map<FunctionName, Container>();
  private readonly api: ApiGateway;
  /** Events already routed (an index into the gateway's list). */
  private routed = 0;
  /** Alarms in ALARM (they publish once, on entering it). */
  private readonly alarmed = new Set<string>();
  readonly failures: FailedInvocation[] = [];
  /** What reached an SQS dead-letter queue. */
  readonly deadLetters: unknown[] = [];
  deployment!: Deployment;

  constructor(
    private readonly gateway: AwsGateway,
    private readonly network: Network,
    callers: Map<string, Caller>,
  ) {
    this.api = new ApiGateway(this, callers);
  }

  /** A new deployment: every container stopped, nothing routed, failed, dead-lettered or alarmed yet. */
  reset(): void {
    this.resetContainers();
    this.routed = 0;
    this.failures.length = 0;
    this.deadLetters.length = 0;
    this.alarmed.clear();
  }

  /** Starts API Gateway's stand-in; its URL is the API's endpoint (the template's ApiEndpoint). */
  startApi(): Promise<string> {
    return this.api.start();
  }

  async stop(): Promise<void> {
    this.resetContainers();
    await this.api.stop();
  }

  /** Stops every container: the next invocation of each starts cold (a new deployment). */
  resetContainers(): void {
    for (const c of this.containers.values()) c.stop();
    this.containers.clear();
  }

  container(name: FunctionName): Container {
    let c = this.containers.get(name);
    if (!c) {
      c = new Container(this.fn(name), this.network);
      this.containers.set(name, c);
    }
    return c;
  }

  fn(name: FunctionName): DeployedFunction {
    const f = this.deployment.functions.get(name);
    if (!f) throw new Error(`the template has no ${name} function`);
    return f;
  }

  /**
   * A synchronous invocation (API Gateway's): the outcome, as is. An error counts on the
   * function's Errors metric (its alarm tells the topic). `clockOffsetMs`: it runs that much later.
   */
  async invoke(name: FunctionName, event: unknown, clockOffsetMs = 0): Promise<Outcome> {
    const outcome = await this.container(name).invoke(event, clockOffsetMs);
    if (!outcome.ok) this.raise('AWS/Lambda', 'Errors', { FunctionName: this.fn(name).functionName });
    return outcome;
  }

  /**
   * An asynchronous invocation (EventBridge's, Scheduler's): tried 1 + retries times, then
   * sent to the function's on-failure destination, if it has one, as Lambda sends it.
   */
  async invokeAsync(fn: DeployedFunction, event: unknown, clockOffsetMs = 0): Promise<Outcome> {
    let outcome: Outcome = { ok: false, error: { name: 'Never', message: 'not invoked' } };
    for (let attempt = 0; attempt <= fn.asyncRetries; attempt++) {
      outcome = await this.invoke(fn.name, event, clockOffsetMs);
      if (outcome.ok) return outcome;
    }
    const error = outcome.ok ? '' : outcome.error.message;
    this.failures.push({ fn: fn.name, error, destination: fn.onFailure });
    if (!fn.onFailure) return outcome;
    const record = {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: `${fn.arn}:$LATEST`,
        condition: 'RetriesExhausted',
        approximateInvokeCount: fn.asyncRetries + 1,
      },
      requestPayload: event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: outcome.ok ? '' : outcome.error.name, errorMessage: error },
    };
    // Lambda sends it with the failing function's execution role.
    const principal: Principal = { name: fn.name, statements: fn.statements };
    const target = this.deployment.functionByArn(fn.onFailure);
    const action = target ? 'lambda:InvokeFunction' : 'sqs:SendMessage';
    if (!allows(principal.statements, { action, resource: fn.onFailure }, {})) {
      this.gateway.refusals.push({ principal: fn.name, action, resource: fn.onFailure });
      return outcome;
    }
    if (target) await this.invokeAsync(target, record);
    else this.deadLetter(fn.onFailure, record);
    return outcome;
  }

  /** A message lands in the SQS queue `arn`: the queue's visible-messages alarm goes off. */
  private deadLetter(arn: string, record: unknown): void {
    this.deadLetters.push(record);
    this.raise('AWS/SQS', 'ApproximateNumberOfMessagesVisible', { QueueName: arn.split(':').pop()! });
  }

  /** Routes every event put on the bus since the last call to the rules' targets, until none is left. */
  async drain(): Promise<void> {
    while (this.routed < this.gateway.events.length) await this.route(this.gateway.events[this.routed++]!);
  }

  /**
   * Delivers an event put earlier once more (EventBridge delivers at least once), with the
   * same id; the outcome of its last target's invocation.
   */
  async redeliver(event: PutEvent): Promise<Outcome | undefined> {
    return this.route(event);
  }

  /** Invokes each target of each rule `event` matches; the last outcome. */
  private async route(event: PutEvent): Promise<Outcome | undefined> {
    let outcome: Outcome | undefined;
    const id = (event.id ??= randomUUID());
    for (const rule of this.deployment.rules) {
      if (!rule.busName || !matchesPattern(rule.pattern ?? {}, event)) continue;
      if (event.bus !== rule.busName) continue;
      for (const arn of rule.targets) {
        const fn = this.deployment.functionByArn(arn);
        if (fn) outcome = await this.invokeAsync(fn, delivered(event, id));
      }
    }
    return outcome;
  }

  /**
   * EventBridge's scheduled rule that targets `name` (the sweeper's), fired at `at` (later
   * than now): the function's container reads its clock at `at` for that invocation.
   */
  async tick(name: FunctionName, at: Date): Promise<Outcome> {
    const fn = this.fn(name);
    const rule = this.deployment.rules.find((r) => r.schedule && r.targets.includes(fn.arn));
    if (!rule) throw new Error(`no scheduled rule of the template targets ${name}`);
    const event = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: ACCOUNT,
      time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: REGION,
      resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/${rule.logicalId}`],
      detail: {},
    };
    return this.invokeAsync(fn, event, Math.max(0, at.getTime() - Date.now()));
  }

  /** Fires the schedule `name` (as Scheduler would at `at`): invokes its target with the scheduler role. */
  async fire(group: string, name: string, at: Date): Promise<Outcome> {
    const schedule = this.gateway.schedules.get(`${group}/${name}`);
    if (!schedule) throw new Error(`no schedule ${group}/${name} was created`);
    const role = Object.entries(this.deployment.template.Resources).find(
      ([id, r]) => r.Type === 'AWS::IAM::Role' && this.deployment.getAtt(id, 'Arn') === schedule.roleArn,
    );
    if (!role) throw new Error(`the schedule's role ${schedule.roleArn} is not in the template`);
    const statements = this.deployment.statementsOf(role[0]);
    if (!allows(statements, { action: 'lambda:InvokeFunction', resource: schedule.targetArn }, {}))
      throw new Error(`the scheduler role may not invoke ${schedule.targetArn}`);
    const fn = this.deployment.functionByArn(schedule.targetArn);
    if (!fn) throw new Error(`the schedule targets ${schedule.targetArn}, no function of the template`);
    const input = schedule.input.replaceAll(
      '<aws.scheduler.scheduled-time>',
      at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    return this.invokeAsync(fn, JSON.parse(input));
  }

  /** Alarms in ALARM since the last deployment, by name. */
  get alarms(): string[] {
    return [...this.alarmed];
  }

  /**
   * A datapoint of `metric` (≥ 1, the stack's thresholds): each alarm on it enters ALARM and
   * publishes to its actions as CloudWatch does, if the topic's policies let CloudWatch.
   */
  raise(namespace: string, metric: string, dimensions: Record<string, string>): void {
    for (const alarm of alarmsOf(this.deployment)) {
      if (alarm.namespace !== namespace || alarm.metric !== metric || this.alarmed.has(alarm.name)) continue;
      if (!Object.entries(alarm.dimensions).every(([k, v]) => dimensions[k] === v)) continue;
      this.alarmed.add(alarm.name);
      for (const topic of alarm.actions) this.publishAlarm(alarm, topic);
    }
  }

  private publishAlarm(alarm: AlarmSpec, topic: string): void {
    const keyId = this.gateway.topicKeys.get(topic);
    const keyArn =
      keyId === undefined || keyId.startsWith('arn:')
        ? (keyId ?? '')
        : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${keyId}`;
    const policies = resourcePolicies(this.deployment, topic, keyArn);
    const context = alarmContext(alarm);
    const calls = [
      { statements: policies.topic, call: { action: 'sns:Publish', resource: topic } },
      ...(keyId === undefined
        ? []
        : [{ statements: policies.key, call: { action: 'kms:GenerateDataKey', resource: keyArn } }]),
    ];
    for (const { statements, call } of calls)
      if (!serviceAllows(statements, 'cloudwatch.amazonaws.com', call, context)) {
        this.gateway.refusals.push({ principal: 'cloudwatch', ...call });
        return;
      }
    this.gateway.published.push({
      by: 'cloudwatch',
      topic,
      subject: `ALARM: "${alarm.name}" in US East (N. Virginia)`,
      message: JSON.stringify({
        AlarmName: alarm.name,
        AlarmDescription: alarm.description,
        NewStateValue: 'ALARM',
        NewStateReason:
          'Threshold Crossed: 1 datapoint [1.0] was greater than or equal to the threshold (1.0).',
      }),
    });
  }
}

/** What EventBridge hands a rule's target for an event put on the bus. */
function delivered(event: PutEvent, id: string) {
  return {
    version: '0',
    id,
    'detail-type': event.detailType,
    source: event.source,
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [],
    detail: event.detail,
  };
}

/** EventBridge pattern matching for the patterns the stack uses: arrays of exact values, nested objects. */
function matchesPattern(pattern: Record<string, unknown>, event: PutEvent): boolean {
  const value: Record<string, unknown> = {
    source: event.source,
    'detail-type': event.detailType,
    detail: event.detail,
  };
  const match = (p: unknown, v: unknown): boolean => {
    if (Array.isArray(p)) return p.includes(v);
    if (p && typeof p === 'object')
      return Object.entries(p).every(([k, sub]) =>
        match(sub, (v as Record<string, unknown> | undefined)?.[k]),
      );
    return p === v;
  };
  return match(pattern, value);
}
