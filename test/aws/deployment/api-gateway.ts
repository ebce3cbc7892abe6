/**
 * API Gateway (HTTP API) as the template makes it: each request to the route the template
 * gives it (the most specific first), IAM auth where the route says (`/admin/api/*`: the
 * SigV4 signature checked with the caller's secret, then `execute-api:Invoke` against the
 * caller's policy, and the caller told to the function as API Gateway tells it), the
 * function invoked synchronously with payload v2, and a 5xx counted for the API's alarm.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cloud } from './cloud.ts';
import type { Principal } from './gateway.ts';
import { allows } from './iam.ts';
import { verifySigV4 } from './sigv4.ts';
import { ACCOUNT, REGION } from './template.ts';

/** Who may call the IAM-authorised routes: their policy and the secret their signatures are made with. */
export interface Caller {
  principal: Principal;
  secretAccessKey: string;
}

export class ApiGateway {
  private server: Server | undefined;

  constructor(
    private readonly cloud: Cloud,
    /** Who may call the IAM-authorised routes (`/admin/api/*`): access key id → caller. */
    private readonly callers: Map<string, Caller>,
  ) {}

  /** Starts listening; its URL is the API's endpoint (the template's ApiEndpoint). */
  async start(): Promise<string> {
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
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The route the template gives the request, IAM auth where it says, payload v2 to the function. */
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
      const signed = await verifySigV4(
        {
          method,
          url: new URL(req.url ?? '/', `http://${req.headers.host ?? 'gateway'}`),
          headers: req.headers,
          body,
        },
        (id) => this.callers.get(id)?.secretAccessKey,
        REGION,
        'execute-api',
      );
      if ('refused' in signed) return plain(403, signed.refused);
      const key = signed.accessKeyId;
      const caller = this.callers.get(key)!.principal;
      // What API Gateway tells the function about an IAM caller it admitted.
      const userArn = `arn:aws:iam::${ACCOUNT}:user/${caller.name}`;
      iam = { accessKey: key, accountId: ACCOUNT, callerId: key, principalOrgId: null, userArn, userId: key };
      const resource = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${this.cloud.deployment.ref(this.cloud.deployment.only('AWS::ApiGatewayV2::Api'))}/$default/${method}${url.pathname}`;
      if (!allows(caller.statements, { action: 'execute-api:Invoke', resource }, {}))
        return plain(
          403,
          `User: ${userArn} is not authorized to perform: execute-api:Invoke on resource: ${resource}`,
        );
    }
    const fn = this.cloud.deployment.functionByArn(route.target);
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
    const outcome = await this.cloud.invoke(fn.name, event);
    if (!outcome.ok) return this.serverError(plain(500, 'Internal Server Error'));
    const result = outcome.result as {
      statusCode: number;
      headers?: Record<string, string>;
      body?: string;
      isBase64Encoded?: boolean;
      cookies?: string[];
    };
    const answer = {
      statusCode: result.statusCode,
      headers: {
        ...(result.headers ?? {}),
        ...(result.cookies?.length ? { 'set-cookie': result.cookies } : {}),
      },
      body: Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'),
    };
    return answer.statusCode >= 500 ? this.serverError(answer) : answer;
  }

  /** A 5xx answer counts on the API's 5xx metric (its alarm tells the topic). */
  private serverError<T>(answer: T): T {
    const api = this.cloud.deployment.ref(this.cloud.deployment.only('AWS::ApiGatewayV2::Api'));
    this.cloud.raise('AWS/ApiGateway', '5xx', { ApiId: api });
    return answer;
  }

  private routeFor(method: string, path: string) {
    const routes = this.cloud.deployment.routes;
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
