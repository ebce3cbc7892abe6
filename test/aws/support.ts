/** Events and context as AWS hands them to the handlers, and the deployment's environment. */
import type { Hono } from 'hono';
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { APIGatewayProxyEventV2, Context, EventBridgeEvent } from 'aws-lambda';

export const REGION = 'us-east-1';
export const ACCOUNT = '123456789012';
export const ARNS = {
  topic: `arn:aws:sns:${REGION}:${ACCOUNT}:handoff-notices`,
  linkKey: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:handoff/link-key-AbCdEf`,
  apiKey: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:handoff/api-key-GhIjKl`,
  webhook: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:handoff/webhook-MnOpQr`,
  schedulerRole: `arn:aws:iam::${ACCOUNT}:role/handoff-scheduler`,
  trigger: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:handoff-trigger`,
  executor: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:handoff-executor`,
};
export const BUS = 'handoff-bus';
export const GROUP = 'handoff-schedules';
export const UI = 'https://handoff.example.com';

/** The environment CDK gives every function (the union; each function reads what it needs). */
export function deploymentEnv(table: string, endpoint: string, stateDir: string): Record<string, string> {
  return {
    HANDOFF_TABLE: table,
    USE_DYNAMODB: 'true',
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: REGION,
    EVENT_BUS_NAME: BUS,
    NOTIFY_CHANNEL: 'sns',
    NOTIFY_TOPIC_ARN: ARNS.topic,
    LINK_KEY_SECRET_ARN: ARNS.linkKey,
    API_KEY_SECRET_ARN: ARNS.apiKey,
    WEBHOOK_SECRET_ARN: ARNS.webhook,
    UI_BASE_URL: UI,
    SCHEDULE_GROUP_NAME: GROUP,
    SCHEDULER_ROLE_ARN: ARNS.schedulerRole,
    TRIGGER_FUNCTION_ARN: ARNS.trigger,
    HANDOFF_SPEECH_PROVIDER: 'aws',
    HANDOFF_STATE_DIR: stateDir,
    HANDOFF_MODEL_PROVIDER: 'local',
  };
}

/** A Lambda context with time to spare. */
export function lambdaContext(functionName = 'handoff-test'): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/01/01/[$LATEST]abc',
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** What EventBridge delivers to a rule's target for an entry that was put on the bus. */
export function deliver<T extends string, D>(entry: PutEventsRequestEntry): EventBridgeEvent<T, D> {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': (entry.DetailType ?? '') as T,
    source: entry.Source ?? '',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [],
    detail: JSON.parse(entry.Detail ?? '{}') as D,
  };
}

/** The IAM context API Gateway puts in an event it admitted on an IAM-authorised route. */
const IAM_CALLER = {
  accessKey: 'AKIAEXAMPLEOPS',
  accountId: ACCOUNT,
  callerId: 'AIDAEXAMPLEOPS',
  cognitoIdentity: null,
  principalOrgId: null,
  userArn: `arn:aws:iam::${ACCOUNT}:user/ops`,
  userId: 'AIDAEXAMPLEOPS',
};

/** What an app sees of a request API Gateway admitted on its IAM route (hono's Lambda bindings). */
export const IAM_BINDINGS = { requestContext: { authorizer: { iam: IAM_CALLER } } };

/**
 * Calls the Lambda app (`app.request`) as an IAM caller: at `/admin` + the `/api/...` URL given,
 * with the gateway's IAM context.
 */
export function asIamCaller(
  app: { request: Hono['request'] },
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  const at = new URL(url);
  at.pathname = `/admin${at.pathname}`;
  return Promise.resolve(app.request(at.toString(), init, IAM_BINDINGS));
}

/** An API Gateway HTTP API (payload 2.0) request. */
export function httpEvent(
  method: string,
  pathAndQuery: string,
  opts: { body?: string; contentType?: string; base64?: boolean; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const url = new URL(pathAndQuery, UI);
  // An /api call without a key is an IAM caller's: sent to /admin/api/*, where API Gateway
  // checks the SigV4 signature and puts who signed in the event (iam-api.ts).
  const iam =
    url.pathname.startsWith('/api/') &&
    url.pathname !== '/api/openapi.json' &&
    !Object.keys(opts.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  if (iam) url.pathname = `/admin${url.pathname}`;
  const headers: Record<string, string> = {
    host: url.host,
    'user-agent': 'handoff-test',
    ...(opts.contentType ? { 'content-type': opts.contentType } : {}),
    ...opts.headers,
  };
  const query = Object.fromEntries(url.searchParams);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'abc123',
      domainName: url.host,
      domainPrefix: url.host.split('.')[0] ?? '',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.9',
        userAgent: 'handoff-test',
      },
      requestId: crypto.randomUUID(),
      routeKey: '$default',
      ...(iam ? { authorizer: { iam: IAM_CALLER } } : {}),
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(opts.body !== undefined
      ? {
          body: opts.base64 ? Buffer.from(opts.body).toString('base64') : opts.body,
          isBase64Encoded: opts.base64 === true,
        }
      : { isBase64Encoded: false }),
  };
}

/** An async invocation record as Lambda sends it to an on-failure destination. */
export function failureRecord(requestPayload: unknown, errorMessage: string, functionArn = ARNS.executor) {
  return {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId: crypto.randomUUID(),
      functionArn: `${functionArn}:$LATEST`,
      condition: 'RetriesExhausted',
      approximateInvokeCount: 3,
    },
    requestPayload,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: 'Error', errorMessage, trace: [] },
  };
}
