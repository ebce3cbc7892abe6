import { rmSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FUNCTION_SPECS, type FunctionName } from '../../lib/functions.ts';
import { SPEECH_ACTIONS, SWEEP_PERIOD } from '../../lib/handoff-stack.ts';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readParams } from '../../lib/params.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { initStore } from '../../shared/store/open-store.ts';
import { TABLE_SCHEMA } from '../../shared/store/table-schema.ts';
import { startDynalite } from '../support/dynalite.ts';
import { type Binding, boundVars, FUNCTION_BINDINGS } from '../../shared/aws/deployment.ts';
import { STEP_LEASE_MS, TRIGGER_LEASE_MS, UNTAKEN_AFTER_MS } from '../../shared/runs/dispatch-timing.ts';
import { actionsOf, type Built, buildStack, rolesAllowing, statementsOfRole, tempOutdir } from './fixture.ts';

const ALL: FunctionName[] = Object.keys(FUNCTION_SPECS) as FunctionName[];
const STEPS: FunctionName[] = ['trigger', 'executor', 'completer', 'resume'];

/** The stack's settings every function gets; the rest is COMMON_VARS and its bindings (shared/aws/deployment.ts). */
const COMMON_VARS = [
  'HANDOFF_MODEL_PROVIDER',
  'HANDOFF_MODEL_ID',
  'HANDOFF_FALLBACK_MODEL_ID',
  'NODE_OPTIONS',
  'HANDOFF_STATE_DIR',
];
const bound = (name: FunctionName): readonly Binding[] => FUNCTION_BINDINGS[name];
const SIZES: Record<FunctionName, [memory: number, timeoutSeconds: number]> = {
  trigger: [256, 60],
  executor: [1024, 900],
  completer: [256, 60],
  resume: [1024, 900],
  api: [512, 29],
  webhook: [256, 29],
  'schedule-sync': [256, 30],
  'step-failed': [256, 30],
  sweeper: [256, 60],
  agent: [1024, 900],
};

let b: Built;
let t: Template;
const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const single = (resources: Record<string, unknown>): [string, { Properties: Record<string, unknown> }] => {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, { Properties: Record<string, unknown> }];
};

/** The other shapes a deployment takes: another model provider with its own UI URL and no email; prod. */
let variant: Built;
let prod: Built;

// Three synths (bundling skipped): about 2 s each on an idle 2-core machine, far more on a busy one.
beforeAll(() => {
  b = buildStack({ notifyEmail: 'me@example.com' });
  t = b.template;
  variant = buildStack({ modelProvider: 'anthropic', uiBaseUrl: 'https://handoff.example.com' });
  prod = buildStack({ stage: 'prod' }, { nagMetadata: true });
}, 180_000);
afterAll(() => {
  for (const built of [b, variant, prod]) built?.cleanup();
});

describe('functions', () => {
  it.each(ALL)('%s runs Node 22 on arm64 with its memory and timeout', (name) => {
    const [memory, timeout] = SIZES[name];
    t.hasResource('AWS::Lambda::Function', {
      Properties: Match.objectLike({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: memory,
        Timeout: timeout,
        Handler: 'index.handler',
        Role: getAtt(b.fn(name).roleId),
      }),
    });
    expect(Object.keys(t.findResources('AWS::Lambda::Function'))).toContain(b.fn(name).id);
  });

  it.each(ALL)('%s gets the common environment and only the variables of its bindings', (name) => {
    const fn = t.findResources('AWS::Lambda::Function')[b.fn(name).id] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const vars = fn.Properties.Environment.Variables;
    expect(Object.keys(vars).sort()).toEqual([...COMMON_VARS, ...boundVars(name)].sort());
    expect(vars).toMatchObject({
      USE_DYNAMODB: 'true',
      HANDOFF_MODEL_PROVIDER: 'bedrock',
      NODE_OPTIONS: '--enable-source-maps',
      HANDOFF_STATE_DIR: '/tmp/handoff',
      HANDOFF_TABLE: { Ref: b.idOf(b.stack.node.findChild('Store').node.findChild('Table')) },
    });
    // Without uiBaseUrl, links point at the API itself.
    expect(vars.UI_BASE_URL).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^HttpHttpApi/), 'ApiEndpoint'],
    });
    if (bound(name).includes('topic')) expect(vars.NOTIFY_CHANNEL).toBe('sns');
  });

  it('the functions that run the engine get the variables they have always had', () => {
    const varsOf = (name: FunctionName) =>
      Object.keys(
        (
          t.findResources('AWS::Lambda::Function')[b.fn(name).id] as {
            Properties: { Environment: { Variables: Record<string, unknown> } };
          }
        ).Properties.Environment.Variables,
      );
    expect(varsOf('executor')).toEqual(
      expect.arrayContaining(['EVENT_BUS_NAME', 'UI_BASE_URL', 'NOTIFY_TOPIC_ARN', 'LINK_KEY_SECRET_ARN']),
    );
    expect(varsOf('api')).toEqual(expect.arrayContaining(['LINK_KEY_SECRET_ARN', 'API_KEY_SECRET_ARN']));
    expect(varsOf('schedule-sync')).toEqual(
      expect.arrayContaining(['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'TRIGGER_FUNCTION_ARN']),
    );
    // Variables without their grant are gone: schedule-sync and step-failed put nothing on the bus.
    expect(varsOf('schedule-sync')).not.toContain('EVENT_BUS_NAME');
    expect(varsOf('step-failed')).not.toContain('EVENT_BUS_NAME');
  });

  it.each(ALL)('%s logs to its own log group kept for a month', (name) => {
    const fn = t.findResources('AWS::Lambda::Function')[b.fn(name).id] as {
      Properties: { LoggingConfig: { LogGroup: { Ref: string } } };
    };
    const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref;
    expect(t.findResources('AWS::Logs::LogGroup')[logGroupId]).toMatchObject({
      Properties: { RetentionInDays: 30 },
    });
  });

  it('the step functions and schedule-sync retry asynchronous invocations twice, then hand the failure to step-failed', () => {
    for (const name of [...STEPS, 'schedule-sync' as const])
      t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: b.fn(name).id },
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 7200,
        DestinationConfig: { OnFailure: { Destination: getAtt(b.fn('step-failed').id) } },
      });
  });

  it('step-failed and the agent fall back to the dead-letter queue; synchronous functions have no async config', () => {
    const configs = Object.values(t.findResources('AWS::Lambda::EventInvokeConfig')) as {
      Properties: {
        FunctionName: { Ref: string };
        DestinationConfig: { OnFailure: { Destination: unknown } };
      };
    }[];
    const byFunction = new Map(configs.map((c) => [c.Properties.FunctionName.Ref, c.Properties]));
    const deadLetters = getAtt(b.idOf(b.stack.node.findChild('Events').node.findChild('DeadLetters')));
    for (const name of ['step-failed', 'agent'] as const)
      expect(byFunction.get(b.fn(name).id)?.DestinationConfig.OnFailure.Destination).toEqual(deadLetters);
    expect([...byFunction.keys()].sort()).toEqual(
      [...STEPS, 'schedule-sync' as const, 'step-failed' as const, 'agent' as const]
        .map((n) => b.fn(n).id)
        .sort(),
    );
  });
});

describe('permissions', () => {
  const role = (name: FunctionName) => b.fn(name).roleId;
  const rolesOf = (names: FunctionName[]) => names.map(role).sort();

  /** The action that shows each binding's grant, on the role of every function bound to it and no other. */
  const GRANT_OF: Partial<Record<Binding, string>> = {
    bus: 'events:PutEvents',
    topic: 'sns:Publish',
    schedules: 'scheduler:CreateSchedule',
    models: 'bedrock:InvokeModel',
  };
  it.each(Object.entries(GRANT_OF))(
    'the %s binding grants %s with its variables, to its functions only',
    (binding, action) => {
      const holders = ALL.filter((name) => bound(name).includes(binding as Binding));
      expect(rolesAllowing(t, action).sort()).toEqual(rolesOf(holders));
    },
  );

  it('the table binding grants writes, tableRead only reads, with HANDOFF_TABLE either way', () => {
    const writers = ALL.filter((name) => bound(name).includes('table'));
    const readers = ALL.filter((name) => bound(name).some((x) => x === 'table' || x === 'tableRead'));
    expect(rolesAllowing(t, 'dynamodb:PutItem').sort()).toEqual(rolesOf(writers));
    expect(rolesAllowing(t, 'dynamodb:Query').sort()).toEqual(rolesOf(readers));
  });

  it('each secret and key binding grants read or decrypt on that one resource', () => {
    const id = (child: string) => b.idOf(b.stack.node.findChild('Secrets').node.findChild(child));
    const on = (child: string) => (r: unknown) => JSON.stringify(r).includes(id(child));
    const holders = (binding: Binding) => rolesOf(ALL.filter((name) => bound(name).includes(binding)));
    expect(rolesAllowing(t, 'secretsmanager:GetSecretValue', on('LinkKey')).sort()).toEqual(
      holders('linkKey'),
    );
    expect(rolesAllowing(t, 'secretsmanager:GetSecretValue', on('ApiKey')).sort()).toEqual(holders('apiKey'));
    expect(rolesAllowing(t, 'secretsmanager:GetSecretValue', on('WebhookSecret')).sort()).toEqual(
      holders('webhookSecret'),
    );
    expect(rolesAllowing(t, 'kms:Decrypt', on('CredentialsKey')).sort()).toEqual(holders('credentialsKey'));
  });

  it('no function role has a managed policy or an Allow on "*"', () => {
    for (const name of ALL) {
      const r = t.findResources('AWS::IAM::Role')[role(name)] as { Properties: Record<string, unknown> };
      expect(r.Properties.ManagedPolicyArns).toBeUndefined();
      // The one exception: speech's two calls name no resource (see the next test).
      for (const s of statementsOfRole(t, role(name)))
        if (s.Resource === '*')
          expect({ name, actions: actionsOf([s]).sort() }).toEqual({
            name: bound(name).includes('speech') ? name : 'a function bound to speech',
            actions: [...SPEECH_ACTIONS].sort(),
          });
    }
  });

  it('the app functions (api, and webhook which serves the same app), and nothing else, get exactly transcribe:StartStreamTranscription and polly:SynthesizeSpeech, in its region', () => {
    expect(rolesAllowing(t, /^(transcribe|polly):/).sort()).toEqual(rolesOf(['api', 'webhook']));
    const speech = statementsOfRole(t, role('api')).filter((s) =>
      actionsOf([s]).some((a) => /^(transcribe|polly):/.test(a)),
    );
    expect(speech).toHaveLength(1);
    expect(actionsOf(speech).sort()).toEqual([
      'polly:SynthesizeSpeech',
      'transcribe:StartStreamTranscription',
    ]);
    expect(speech[0]).toMatchObject({
      Effect: 'Allow',
      Condition: { StringEquals: { 'aws:RequestedRegion': expect.anything() } },
    });
    const fn = t.findResources('AWS::Lambda::Function')[b.fn('api').id] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    expect(fn.Properties.Environment.Variables.HANDOFF_SPEECH_PROVIDER).toBe('aws');
  });

  it('the trigger opens the source credential and tells of a failure, but reads no secret and calls no model', () => {
    const actions = actionsOf(statementsOfRole(t, role('trigger')));
    expect(actions).toEqual(expect.arrayContaining(['sns:Publish', 'kms:Decrypt', 'events:PutEvents']));
    expect(actions.filter((a) => /^(secretsmanager|bedrock|scheduler|iam):/.test(a))).toEqual([]);
  });

  it('every function that starts, moves or fails runs publishes to the topic; schedule-sync does not', () => {
    expect(rolesAllowing(t, 'sns:Publish').sort()).toEqual(rolesOf(ALL.filter((n) => n !== 'schedule-sync')));
  });

  it('only the functions that pause runs (executor, resume), send held notices (sweeper) or open links (api) read the link-signing key', () => {
    const linkKey = b.idOf(b.stack.node.findChild('Secrets').node.findChild('LinkKey'));
    const readers = rolesAllowing(t, 'secretsmanager:GetSecretValue', (r) =>
      JSON.stringify(r).includes(linkKey),
    );
    expect(readers.sort()).toEqual(rolesOf(['executor', 'resume', 'api', 'sweeper']));
  });

  it('only the functions that read sources or act may decrypt integration credentials, with a rotating key', () => {
    const key = b.idOf(b.stack.node.findChild('Secrets').node.findChild('CredentialsKey'));
    t.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      Description: Match.stringLikeRegexp('credentials'),
    });
    const decrypters = rolesAllowing(t, 'kms:Decrypt', (r) => JSON.stringify(r).includes(key));
    const readers = ['trigger', 'executor', 'resume', 'api', 'webhook', 'agent'] as const;
    expect(decrypters.sort()).toEqual(rolesOf([...readers]));
    expect(rolesAllowing(t, /^kms:Encrypt/, (r) => JSON.stringify(r).includes(key))).toEqual([]);
    for (const name of readers) {
      const fn = t.findResources('AWS::Lambda::Function')[b.fn(name).id] as {
        Properties: { Environment: { Variables: Record<string, unknown> } };
      };
      expect(fn.Properties.Environment.Variables.HANDOFF_KMS_KEY_ID).toEqual(getAtt(key));
    }
  });

  it('the api reads the API key and the webhook reads the webhook secret, nobody else', () => {
    const secret = (id: string) => b.idOf(b.stack.node.findChild('Secrets').node.findChild(id));
    const readersOf = (id: string) =>
      rolesAllowing(t, 'secretsmanager:GetSecretValue', (r) => JSON.stringify(r).includes(secret(id)));
    expect(readersOf('ApiKey')).toEqual([role('api')]);
    expect(readersOf('WebhookSecret')).toEqual([role('webhook')]);
  });

  it('only schedule-sync and the sweeper (which syncs what the CLI changed) manage schedules and pass the scheduler role, and only that role', () => {
    const managers = rolesOf(['schedule-sync', 'sweeper']);
    expect(rolesAllowing(t, /^scheduler:/).sort()).toEqual(managers);
    expect(rolesAllowing(t, 'iam:PassRole').sort()).toEqual(managers);
    const schedulerRole = b.idOf(b.stack.node.findChild('Schedules').node.findChild('SchedulerRole'));
    for (const name of ['schedule-sync', 'sweeper'] as const) {
      const passRole = statementsOfRole(t, role(name)).filter((s) => s.Action === 'iam:PassRole');
      expect(passRole.map((s) => s.Resource)).toEqual([getAtt(schedulerRole)]);
      const schedulerActions = statementsOfRole(t, role(name)).find((s) =>
        actionsOf([s]).includes('scheduler:CreateSchedule'),
      );
      expect(actionsOf(schedulerActions ? [schedulerActions] : [])).toEqual(
        expect.arrayContaining([
          'scheduler:CreateSchedule',
          'scheduler:UpdateSchedule',
          'scheduler:DeleteSchedule',
          'scheduler:GetSchedule',
        ]),
      );
      expect(JSON.stringify(schedulerActions?.Resource)).toContain(':schedule/handoff-dev/*');
    }
  });

  it('the functions that move runs along may put events on the bus, and only on that bus', () => {
    const bus = b.idOf(b.stack.node.findChild('Events').node.findChild('Bus'));
    expect(rolesAllowing(t, 'events:PutEvents').sort()).toEqual(
      rolesOf(['trigger', 'executor', 'completer', 'resume', 'api', 'webhook', 'sweeper', 'agent']),
    );
    for (const name of ['trigger', 'api', 'sweeper'] as const) {
      const put = statementsOfRole(t, role(name)).filter((s) => s.Action === 'events:PutEvents');
      expect(put.map((s) => s.Resource)).toEqual([getAtt(bus)]);
    }
  });

  it('step-failed, the sweeper, schedule-sync (its sync notes) and the request handlers read and write the table', () => {
    expect(rolesAllowing(t, 'dynamodb:PutItem').sort()).toEqual(
      rolesOf([
        'trigger',
        'executor',
        'completer',
        'resume',
        'api',
        'webhook',
        'schedule-sync',
        'step-failed',
        'sweeper',
        'agent',
      ]),
    );
    expect(rolesAllowing(t, 'dynamodb:Query')).toContain(role('schedule-sync'));
    const resources = JSON.stringify(statementsOfRole(t, role('executor')));
    expect(resources).toContain('/index/pending');
    expect(resources).toContain('/index/runs-by-workflow');
    expect(resources).toContain('/index/by-time');
    expect(resources).not.toContain('/index/*');
  });

  it('only the functions that run agents (executor, resume, agent) may call Bedrock; never the API', () => {
    expect(rolesAllowing(t, 'bedrock:InvokeModel').sort()).toEqual(rolesOf(['executor', 'resume', 'agent']));
    const bedrock = statementsOfRole(t, role('executor')).find((s) =>
      actionsOf([s]).includes('bedrock:InvokeModel'),
    );
    expect(actionsOf(bedrock ? [bedrock] : []).sort()).toEqual([
      'bedrock:InvokeModel',
      'bedrock:InvokeModelWithResponseStream',
    ]);
    const text = JSON.stringify(bedrock?.Resource);
    expect(text).toContain(':bedrock:*::foundation-model/*');
    expect(text).toContain(':inference-profile/*');
  });

  it('with another model provider no function gets Bedrock permissions', () => {
    expect(rolesAllowing(variant.template, /^bedrock:/)).toEqual([]);
    variant.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ HANDOFF_MODEL_PROVIDER: 'anthropic' }) },
    });
  });
});

describe('HTTP API', () => {
  const routes = () =>
    Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) =>
        (r as { Properties: { RouteKey: string; AuthorizationType: string; Target: unknown } }).Properties,
    );

  it('has the app, decision, webhook and page routes', () => {
    expect(
      routes()
        .map((r) => r.RouteKey)
        .sort(),
    ).toEqual(
      [
        '$default',
        'ANY /admin/api/{proxy+}',
        'ANY /api/{proxy+}',
        'GET /',
        'GET /api/openapi.json',
        'GET /decide/{id}',
        'POST /decide/{id}',
        'POST /hooks/{workflowId}',
      ].sort(),
    );
  });

  it('signs /admin/api/* with IAM at the gateway; every other route (/api/* by its keys) is authenticated by the app', () => {
    for (const r of routes())
      expect([r.RouteKey, r.AuthorizationType]).toEqual([
        r.RouteKey,
        r.RouteKey === 'ANY /admin/api/{proxy+}' ? 'AWS_IAM' : 'NONE',
      ]);
  });

  it('sends webhooks to the webhook function and everything else to the api function', () => {
    const integrations = t.findResources('AWS::ApiGatewayV2::Integration') as Record<
      string,
      { Properties: { IntegrationUri: unknown; PayloadFormatVersion: string } }
    >;
    const targetFn = (route: { Target: unknown }) => {
      const id = JSON.stringify(route.Target).match(/"Ref":"([^"]+)"/)?.[1] ?? '';
      return JSON.stringify(integrations[id]?.Properties.IntegrationUri);
    };
    for (const r of routes()) {
      const expected = r.RouteKey.startsWith('POST /hooks/') ? b.fn('webhook').id : b.fn('api').id;
      expect(targetFn(r)).toContain(expected);
    }
    for (const i of Object.values(integrations)) expect(i.Properties.PayloadFormatVersion).toBe('2.0');
  });

  it('logs access to a log group and throttles the stage', () => {
    const [, stage] = single(t.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 },
      AccessLogSettings: {
        DestinationArn: getAtt(b.idOf(b.stack.node.findChild('Http').node.findChild('AccessLogs'))),
      },
    });
    const format = JSON.parse((stage.Properties.AccessLogSettings as { Format: string }).Format) as object;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
  });
});

describe('events and schedules', () => {
  it.each(['executor', 'completer', 'resume'] as const)(
    'routes handoff.step for %s to its function',
    (node) => {
      t.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: { Ref: b.idOf(b.stack.node.findChild('Events').node.findChild('Bus')) },
        EventPattern: { source: ['handoff'], 'detail-type': ['handoff.step'], detail: { node: [node] } },
        Targets: [
          {
            Arn: getAtt(b.fn(node).id),
            Id: Match.anyValue(),
            RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 },
            DeadLetterConfig: {
              Arn: getAtt(b.idOf(b.stack.node.findChild('Events').node.findChild('DeadLetters'))),
            },
          },
        ],
      });
    },
  );

  it('routes handoff.carry (an answer carried out while its run waits) to the resume function, with retries and the dead-letter queue', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: b.idOf(b.stack.node.findChild('Events').node.findChild('Bus')) },
      EventPattern: { source: ['handoff'], 'detail-type': ['handoff.carry'] },
      Targets: [
        {
          Arn: getAtt(b.fn('resume').id),
          Id: Match.anyValue(),
          RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 },
          DeadLetterConfig: {
            Arn: getAtt(b.idOf(b.stack.node.findChild('Events').node.findChild('DeadLetters'))),
          },
        },
      ],
    });
  });

  it('routes handoff.workflow to schedule-sync, learning and assistant turns to the agent, and nothing else on the bus', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['handoff'], 'detail-type': ['handoff.workflow'] },
      Targets: [Match.objectLike({ Arn: getAtt(b.fn('schedule-sync').id) })],
    });
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['handoff'], 'detail-type': ['handoff.learn', 'handoff.chat-turn'] },
      Targets: [Match.objectLike({ Arn: getAtt(b.fn('agent').id) })],
    });
    t.resourceCountIs('AWS::Events::Rule', 7);
  });

  it('invokes the sweeper every 5 minutes, on the default bus, with retries and the dead-letter queue', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      EventBusName: Match.absent(),
      Targets: [
        Match.objectLike({
          Arn: getAtt(b.fn('sweeper').id),
          RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 300 },
        }),
      ],
    });
  });

  it('presumes a step lost only after its function could no longer be running it', () => {
    const seconds = (name: FunctionName) => FUNCTION_SPECS[name].timeout.toSeconds();
    const longestStep = Math.max(...(['executor', 'completer', 'resume'] as const).map(seconds));
    expect(STEP_LEASE_MS).toBeGreaterThan(longestStep * 1000);
    expect(TRIGGER_LEASE_MS).toBeGreaterThanOrEqual(seconds('trigger') * 1000);
    expect(UNTAKEN_AFTER_MS).toBeGreaterThanOrEqual(SWEEP_PERIOD.toMilliseconds());
  });

  it('keeps undeliverable events in an encrypted, SSL-only queue', () => {
    const dlq = b.idOf(b.stack.node.findChild('Events').node.findChild('DeadLetters'));
    t.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1209600,
    });
    t.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: dlq }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sqs:SendMessage',
            Principal: { Service: 'events.amazonaws.com' },
          }),
        ]),
      },
    });
  });

  it('has a schedule group and a role only EventBridge Scheduler of this account can assume, to invoke the trigger', () => {
    // Deleted with the stack whatever the stage: kept schedules would fire at a deleted trigger.
    t.hasResource('AWS::Scheduler::ScheduleGroup', {
      Properties: { Name: 'handoff-dev', Tags: Match.anyValue() },
      DeletionPolicy: 'Delete',
    });
    const schedulerRole = b.idOf(b.stack.node.findChild('Schedules').node.findChild('SchedulerRole'));
    t.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      },
    });
    const statements = statementsOfRole(t, schedulerRole);
    expect(actionsOf(statements)).toEqual(['lambda:InvokeFunction']);
    expect(JSON.stringify(statements)).toContain(b.fn('trigger').id);
    expect(JSON.stringify(statements)).not.toMatch(/Executor|\*/);
  });

  it('tells schedule-sync the group, the role and the trigger', () => {
    const fn = t.findResources('AWS::Lambda::Function')[b.fn('schedule-sync').id] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const schedules = b.stack.node.findChild('Schedules');
    expect(fn.Properties.Environment.Variables).toMatchObject({
      SCHEDULE_GROUP_NAME: 'handoff-dev',
      SCHEDULER_ROLE_ARN: getAtt(b.idOf(schedules.node.findChild('SchedulerRole'))),
      TRIGGER_FUNCTION_ARN: getAtt(b.fn('trigger').id),
    });
  });
});

describe('store', () => {
  it('is one pk/sk table, on demand, with point-in-time recovery, TTL and its three indexes', () => {
    t.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'pending',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'runs-by-workflow',
          KeySchema: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'by-time',
          KeySchema: [
            { AttributeName: 'gsi3pk', KeyType: 'HASH' },
            { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it("`handoff store init` creates exactly the key schema and indexes of the stack's table", async () => {
    const [, table] = single(t.findResources('AWS::DynamoDB::Table'));
    const stack = table.Properties as {
      KeySchema: unknown[];
      AttributeDefinitions: { AttributeName: string }[];
      GlobalSecondaryIndexes: { IndexName: string; KeySchema: unknown[]; Projection: unknown }[];
      TimeToLiveSpecification: { AttributeName: string };
    };
    const dynalite = await startDynalite();
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynalite.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const env = loadEnv({
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        HANDOFF_TABLE: 'h-init',
      });
      expect(await initStore(env)).toMatch(/^Created DynamoDB table h-init/);
      const created = (await client.send(new DescribeTableCommand({ TableName: 'h-init' }))).Table;
      expect(created?.KeySchema).toEqual(stack.KeySchema);
      expect(created?.AttributeDefinitions?.map((a) => a.AttributeName).sort()).toEqual(
        stack.AttributeDefinitions.map((a) => a.AttributeName).sort(),
      );
      expect(
        created?.GlobalSecondaryIndexes?.map((i) => ({
          IndexName: i.IndexName,
          KeySchema: i.KeySchema,
          Projection: i.Projection,
        })),
      ).toEqual(stack.GlobalSecondaryIndexes);
      expect(stack.TimeToLiveSpecification.AttributeName).toBe(TABLE_SCHEMA.ttlAttribute);
    } finally {
      client.destroy();
      await dynalite.stop();
    }
  });

  it('is deleted with a dev stack, retained and deletion-protected for any other stage', () => {
    t.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    prod.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    for (const type of ['AWS::Logs::LogGroup', 'AWS::SecretsManager::Secret', 'AWS::KMS::Key'])
      for (const r of Object.values(prod.template.findResources(type)))
        expect((r as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
    prod.template.hasResource('AWS::Scheduler::ScheduleGroup', {
      Properties: Match.objectLike({ Name: 'handoff-prod' }),
      DeletionPolicy: 'Delete',
    });
  });
});

describe('notifications and alarms', () => {
  it('encrypts the topic with a rotating key CloudWatch may use, and enforces SSL', () => {
    const key = b.idOf(b.stack.node.findChild('Notifications').node.findChild('TopicKey'));
    t.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: getAtt(key) });
    t.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    t.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      },
    });
  });

  it('subscribes notifyEmail, and nobody when it is not given', () => {
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'me@example.com' });
    variant.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('alarms on errors of every function, dead letters and API 5xx, all to the topic', () => {
    const topic = { Ref: b.idOf(b.stack.node.findChild('Notifications').node.findChild('Topic')) };
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => (a as { Properties: Record<string, unknown> }).Properties,
    );
    expect(alarms).toHaveLength(ALL.length + 2);
    for (const a of alarms) expect(a.AlarmActions).toEqual([topic]);
    for (const name of ALL)
      expect(alarms).toContainEqual(
        expect.objectContaining({
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: b.fn(name).id } }],
          Threshold: 1,
        }),
      );
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
      }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' }),
    );
  });
});

describe('stack', () => {
  it('outputs the API URL, table, topic and bus names, and where the caller-facing secrets are', () => {
    for (const name of ['ApiUrl', 'TableName', 'TopicArn', 'BusName', 'WebhookSecretArn', 'ApiKeySecretArn'])
      t.hasOutput(name, Match.anyValue());
    t.hasOutput('ApiUrl', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpHttpApi'), 'ApiEndpoint'] },
    });
  });

  it('uses uiBaseUrl for links when given', () => {
    const functions = Object.values(variant.template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    }[];
    expect(functions).toHaveLength(ALL.length);
    for (const f of functions)
      expect(f.Properties.Environment.Variables.UI_BASE_URL).toBe('https://handoff.example.com');
  });

  it('synthesises without CDK warnings or errors', () => {
    expect(Annotations.fromStack(b.stack).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(b.stack).findError('*', Match.anyValue())).toEqual([]);
  });
});

describe('parameters', () => {
  const params = (context: Record<string, unknown>) => readParams({ tryGetContext: (key) => context[key] });

  it('defaults to stage dev and Bedrock', () => {
    expect(params({})).toEqual({ stage: 'dev', modelProvider: 'bedrock' });
  });

  it('reads every parameter from context and trims a trailing slash off uiBaseUrl', () => {
    expect(
      params({
        stage: 'prod',
        notifyEmail: 'me@example.com',
        uiBaseUrl: 'https://handoff.example.com/',
        modelProvider: 'bedrock',
        modelId: 'global.anthropic.claude-sonnet-4-6',
        fallbackModelId: 'some-model',
      }),
    ).toEqual({
      stage: 'prod',
      notifyEmail: 'me@example.com',
      uiBaseUrl: 'https://handoff.example.com',
      modelProvider: 'bedrock',
      modelId: 'global.anthropic.claude-sonnet-4-6',
      fallbackModelId: 'some-model',
    });
  });

  it.each([
    [{ stage: 'Prod!' }, /^stage=Prod! is not valid/],
    [{ modelProvider: 'gpt' }, /^modelProvider=gpt is not valid: use one of local, bedrock/],
    [{ notifyEmail: 'nobody' }, /^notifyEmail=nobody is not an email address/],
    [{ uiBaseUrl: 'handoff.example.com' }, /^uiBaseUrl=handoff.example.com is not valid/],
  ])('rejects %j with one line', (context, message) => {
    expect(() => params(context)).toThrow(message);
  });
});

describe('cdk-nag AwsSolutions', () => {
  /** Every acknowledgement recorded on the construct tree: [path, rule id, reason]. */
  const acknowledgements = (root: IConstruct): [string, string, string][] =>
    root.node
      .findAll()
      .flatMap((c) =>
        c.node.metadata
          .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((m) =>
            Object.entries(m.data as Record<string, string>).map(
              ([id, reason]) => [c.node.path, id, reason] as [string, string, string],
            ),
          ),
      );

  it('finds no unacknowledged errors or warnings, in any shape of the stack', () => {
    for (const built of [b, variant, prod]) {
      const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(built.stack);
      const findings = report.violations.map(
        (v) =>
          `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(findings).toEqual([]);
      expect(report.success).toBe(true);
    }
  });

  it('is not vacuous: the same check flags an unencrypted, non-SSL queue', () => {
    const outdir = tempOutdir();
    try {
      const stack = new Stack(new App({ outdir }), 'Control');
      new Queue(stack, 'Plain');
      const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
      expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('every acknowledgement names an AwsSolutions rule and gives a real reason', () => {
    const acks = acknowledgements(b.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const [where, id, reason] of acks) {
      expect({ where, id }).toEqual({
        where,
        id: expect.stringMatching(/^(annotation::)?AwsSolutions-[A-Z]+\d+(\[.+\])?$/i),
      });
      expect(reason.trim().length).toBeGreaterThanOrEqual(10);
    }
  });

  it('acknowledges only what is listed here (a new acknowledgement must be added on purpose)', () => {
    const ids = [
      ...new Set(acknowledgements(b.stack).map(([, id]) => id.replace(/^annotation::/i, ''))),
    ].sort();
    expect(ids).toEqual(
      [
        'AwsSolutions-APIG4',
        'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/handoff-dev/*]',
        'AwsSolutions-L1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
      ].sort(),
    );
  });

  it('writes the acknowledgements into the template metadata for auditors', () => {
    const resources = prod.template.toJSON().Resources as Record<
      string,
      { Metadata?: { cdk_nag?: { rules_to_suppress: { id: string; reason: string }[] } } }
    >;
    const rules = Object.values(resources).flatMap((r) => r.Metadata?.cdk_nag?.rules_to_suppress ?? []);
    expect(rules.map((r) => r.id)).toContain('AwsSolutions-SMG4');
    for (const r of rules) expect(r.reason.length).toBeGreaterThanOrEqual(10);
  });
});
