/**
 * What AWS does around the functions, from the template: API Gateway's routes (IAM auth on
 * `/api/*`), EventBridge's rules (events routed to their targets), Scheduler's firings (the
 * schedules schedule-sync made, invoked with the scheduler role's permission), and Lambda's
 * asynchronous invocation (retries, then the on-failure destination, with the failing
 * function's own permission to invoke it).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FunctionName } from '../../../lib/functions.ts';
import type { AwsGateway, Principal, PutEvent } from './gateway.ts';
import { allows } from './iam.ts';
import { Container, type Network, type Outcome } from './runtime.ts';
import { ACCOUNT, REGION, type Deployment, type DeployedFunction } from './template.ts';

/** An asynchronous invocation that failed every try, and where it went. */
export interface FailedInvocation {
  fn: FunctionName;
  error: string;
  destination: string | undefined;
}

export class Cloud {
  private readonly containers = new Map<FunctionName, Container>();
  private server: Server | undefined;
  /** Events already routed (an index into the gateway's list). */
  private routed = 0;
  readonly failures: FailedInvocation[] = [];
  /** What reached an SQS dead-letter queue. */
  readonly deadLetters: unknown[] = [];
  deployment!: Deployment;

  constructor(
    private readonly gateway: AwsGateway,
    private readonly network: Network,
    /** Who may call the IAM-authorised routes (`/admin/api/*`): access key id → principal. */
    private readonly callers: Map<string, Principal>,
  ) {}

  /** Starts API Gateway's stand-in; its URL is the API's endpoint (the template's ApiEndpoint). */
  async startApi(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.http(req).then(
        (out) => {
          res.writeHead(out.statusCode, out.headers);
          res.end(out.body);
        },
        (error: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: String(error) }));
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const c of this.containers.values()) c.stop();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
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

  /** A synchronous invocation (API Gateway's): the outcome, as is. */
  invoke(name: FunctionName, event: unknown): Promise<Outcome> {
    return this.container(name).invoke(event);
  }

  /**
   * An asynchronous invocation (EventBridge's, Scheduler's): tried 1 + retries times, then
   * sent to the function's on-failure destination, if it has one, as Lambda sends it.
   */
  async invokeAsync(fn: DeployedFunction, event: unknown): Promise<Outcome> {
    let outcome: Outcome = { ok: false, error: { name: 'Never', message: 'not invoked' } };
    for (let attempt = 0; attempt <= fn.asyncRetries; attempt++) {
      outcome = await this.invoke(fn.name, event);
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
    else this.deadLetters.push(record);
    return outcome;
  }

  /** Routes every event put on the bus since the last call to the rules' targets, until none is left. */
  async drain(): Promise<void> {
    while (this.routed < this.gateway.events.length) {
      const event = this.gateway.events[this.routed++]!;
      for (const rule of this.deployment.rules) {
        if (!rule.busName || !matchesPattern(rule.pattern ?? {}, event)) continue;
        if (event.bus !== rule.busName) continue;
        for (const arn of rule.targets) {
          const fn = this.deployment.functionByArn(arn);
          if (fn) await this.invokeAsync(fn, delivered(event));
        }
      }
    }
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

  /** API Gateway: the route the template gives the request, IAM auth where it says, payload v2 to the function. */
  private async http(
    req: IncomingMessage,
  ): Promise<{ statusCode: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://gateway');
    const method = req.method ?? 'GET';
    const route = this.routeFor(method, url.pathname);
    const plain = (statusCode: number, message: string) => ({
      statusCode,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ message })),
    });
    if (!route) return plain(404, 'Not Found');
    let iam: Record<string, unknown> | undefined;
    if (route.iam) {
      const key = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
      const caller = key ? this.callers.get(key) : undefined;
      if (!caller || !/Signature=[0-9a-f]{64}/.test(req.headers.authorization ?? ''))
        return plain(403, 'Forbidden');
      // What API Gateway tells the function about an IAM caller it admitted.
      const userArn = `arn:aws:iam::${ACCOUNT}:user/${caller.name}`;
      iam = { accessKey: key, accountId: ACCOUNT, callerId: key, principalOrgId: null, userArn, userId: key };
      const resource = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${this.deployment.ref(this.deployment.only('AWS::ApiGatewayV2::Api'))}/$default/${method}${url.pathname}`;
      if (!allows(caller.statements, { action: 'execute-api:Invoke', resource }, {}))
        return plain(403, 'Forbidden');
    }
    const fn = this.deployment.functionByArn(route.target);
    if (!fn) throw new Error(`route ${route.method} ${route.path} targets ${route.target}`);
    const headers = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([k]) => k !== 'cookie')
        .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
    );
    const event = {
      version: '2.0',
      routeKey: route.path === '$default' ? '$default' : `${route.method} ${route.path}`,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
      headers,
      ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
      requestContext: {
        accountId: ACCOUNT,
        apiId: 'api',
        domainName: req.headers.host ?? '',
        domainPrefix: 'api',
        http: {
          method,
          path: url.pathname,
          protocol: 'HTTP/1.1',
          sourceIp: '203.0.113.9',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: route.path,
        ...(iam ? { authorizer: { iam } } : {}),
        stage: '$default',
        time: new Date().toUTCString(),
        timeEpoch: Date.now(),
      },
      ...(body.length
        ? { body: body.toString('base64'), isBase64Encoded: true }
        : { isBase64Encoded: false }),
    };
    const outcome = await this.invoke(fn.name, event);
    if (!outcome.ok) return plain(500, 'Internal Server Error');
    const result = outcome.result as {
      statusCode: number;
      headers?: Record<string, string>;
      body?: string;
      isBase64Encoded?: boolean;
      cookies?: string[];
    };
    return {
      statusCode: result.statusCode,
      headers: {
        ...(result.headers ?? {}),
        ...(result.cookies?.length ? { 'set-cookie': result.cookies } : {}),
      },
      body: Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'),
    };
  }

  private routeFor(method: string, path: string) {
    const routes = this.deployment.routes;
    const matches = (pattern: string) => {
      const re = pattern.replace(/\{[^}]+\+\}/g, '.+').replace(/\{[^}]+\}/g, '[^/]+');
      return new RegExp(`^${re}$`).test(path);
    };
    // API Gateway prefers the most specific route: exact, then parameters, then greedy, then $default.
    const score = (p: string) => (p.includes('+}') ? 1 : p.includes('{') ? 2 : 3);
    const candidates = routes
      .filter((r) => r.path !== '$default' && (r.method === 'ANY' || r.method === method) && matches(r.path))
      .sort((a, b) => score(b.path) - score(a.path));
    return candidates[0] ?? routes.find((r) => r.path === '$default');
  }
}

/** What EventBridge hands a rule's target for an event put on the bus. */
function delivered(event: PutEvent) {
  return {
    version: '0',
    id: randomUUID(),
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
