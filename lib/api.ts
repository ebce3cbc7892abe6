import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOG_RETENTION } from './functions.ts';

export interface HandoffApiProps {
  removalPolicy: RemovalPolicy;
  /** Steady-state requests per second for the whole API. */
  rateLimit?: number;
  burstLimit?: number;
}

const NO_GATEWAY_AUTH = 'the app authenticates this route itself';

export interface HandoffApiHandlers {
  /** The HTTP app: `/api/*`, decision pages, the status page, `$default`. */
  app: IFunction;
  /** `POST /hooks/{workflowId}`. */
  webhook: IFunction;
}

/**
 * The public HTTP API. `/admin/api/*` is for IAM callers (administrators): signed with AWS
 * SigV4 and checked by the gateway, which tells the app who signed. Everything else reaches
 * the app unauthenticated at the gateway because the app checks it: `/api/*` by API key (the
 * deployment's, or a workspace's, hashed in the table), webhooks by HMAC signature, decision
 * pages by signed single-use links, other pages by the app's login (closed on a public
 * deployment without one), the event feed by the API key.
 */
export class HandoffApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: HandoffApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Handoff: API, webhooks and decision pages',
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: props.removalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit ?? 25, burstLimit: props.burstLimit ?? 50 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            time: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
  }

  /** The API's base URL, without a trailing slash (known before any route exists). */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }

  /** Adds the routes; separate from construction so the handlers can be given the API's URL. */
  connect(handlers: HandoffApiHandlers): void {
    const app = new HttpLambdaIntegration('App', handlers.app);
    const webhook = new HttpLambdaIntegration('Webhook', handlers.webhook);

    this.httpApi.addRoutes({
      path: '/admin/api/{proxy+}',
      methods: [HttpMethod.ANY],
      integration: app,
      authorizer: new HttpIamAuthorizer(),
    });
    this.openRoute(
      '/api/{proxy+}',
      [HttpMethod.ANY],
      app,
      "API keys (the deployment's, or a workspace's) the app checks against their hashes in the table",
    );
    this.openRoute('/api/openapi.json', [HttpMethod.GET], app, 'the OpenAPI document is public');
    this.openRoute('/', [HttpMethod.GET], app, `the status page: ${NO_GATEWAY_AUTH} (login, or closed)`);
    this.openRoute(
      '/decide/{id}',
      [HttpMethod.GET, HttpMethod.POST],
      app,
      'decision pages open from a signed, expiring, single-use link the app verifies',
    );
    this.openRoute(
      '/hooks/{workflowId}',
      [HttpMethod.POST],
      webhook,
      'webhook callers sign the body (X-Handoff-Signature HMAC-SHA256) and the app verifies it',
    );
    // Everything else (other pages, /healthz, the event feed) goes to the app as well.
    const fallback = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: app,
    });
    Validations.of(fallback).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: `No gateway authorizer on purpose: ${NO_GATEWAY_AUTH} (pages: login or closed; event feed: API key).`,
    });
  }

  private openRoute(
    path: string,
    methods: HttpMethod[],
    integration: HttpLambdaIntegration,
    why: string,
  ): void {
    for (const route of this.httpApi.addRoutes({ path, methods, integration }))
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `No gateway authorizer on purpose: ${why}.`,
      });
  }
}
