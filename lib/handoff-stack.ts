import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction, IDestination } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { Construct } from 'constructs';
import { HandoffAlarms } from './alarms.ts';
import { HandoffApi } from './api.ts';
import { HandoffBus } from './bus.ts';
import { type FunctionName, handoffFunction, invokeOnFailure } from './functions.ts';
import { HandoffNotifications } from './notifications.ts';
import type { HandoffParams } from './params.ts';
import { HandoffSchedules } from './schedules.ts';
import { HandoffSecrets } from './secrets.ts';
import { HandoffTable } from './table.ts';
import { type Binding, FUNCTION_BINDINGS } from '../shared/aws/deployment.ts';

export type HandoffStackProps = StackProps & HandoffParams;

/** Where a Lambda keeps scratch state; the store itself is DynamoDB. */
const STATE_DIR = '/tmp/handoff';
/** How often the sweeper runs. */
export const SWEEP_PERIOD = Duration.minutes(5);

/**
 * Handoff on AWS: each graph node (trigger → executor → completer, and resume) in
 * its own Lambda, moved along by EventBridge; runs in DynamoDB; schedules in
 * EventBridge Scheduler; an HTTP API for people and other systems; SNS for notices.
 */
/** The only AWS calls speech makes (the api function's grant). */
export const SPEECH_ACTIONS = ['transcribe:StartStreamTranscription', 'polly:SynthesizeSpeech'] as const;

export class HandoffStack extends Stack {
  constructor(scope: Construct, id: string, props: HandoffStackProps) {
    super(scope, id, props);
    Tags.of(this).add('project', 'handoff');
    Tags.of(this).add('stage', props.stage);
    // `dev` is for trying things out: `cdk destroy` removes everything. Any other stage keeps its data.
    const removalPolicy = props.stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const store = new HandoffTable(this, 'Store', { removalPolicy });
    const bus = new HandoffBus(this, 'Events');
    const notifications = new HandoffNotifications(this, 'Notifications', {
      removalPolicy,
      ...(props.notifyEmail !== undefined ? { email: props.notifyEmail } : {}),
    });
    const secrets = new HandoffSecrets(this, 'Secrets', { removalPolicy });
    const api = new HandoffApi(this, 'Http', { removalPolicy });

    // Settings every function reads; each resource's variables come with its grant (bind below).
    const environment: Record<string, string> = {
      HANDOFF_MODEL_PROVIDER: props.modelProvider,
      // Empty means "the provider's default" (the app treats empty variables as unset).
      HANDOFF_MODEL_ID: props.modelId ?? '',
      HANDOFF_FALLBACK_MODEL_ID: props.fallbackModelId ?? '',
      NODE_OPTIONS: '--enable-source-maps',
      HANDOFF_STATE_DIR: STATE_DIR,
      // COMMON_VARS: without uiBaseUrl, links point at the API itself.
      UI_BASE_URL: props.uiBaseUrl ?? api.url,
    };
    // The schedules invoke the trigger, so they are made after it; schedule-sync and the sweeper are bound after both.
    const made: { schedules?: HandoffSchedules } = {};
    const binders: Record<Binding, (f: LambdaFunction) => void> = {
      table: (f) => store.bind(f),
      tableRead: (f) => store.bind(f, 'read'),
      bus: (f) => bus.bind(f),
      topic: (f) => notifications.bind(f),
      linkKey: (f) => secrets.bindLinkKey(f),
      apiKey: (f) => secrets.bindApiKey(f),
      webhookSecret: (f) => secrets.bindWebhookSecret(f),
      credentialsKey: (f) => secrets.bindCredentialsKey(f),
      schedules: (f) => {
        if (!made.schedules) throw new Error(`${f.node.id} is bound to the schedules before they exist`);
        made.schedules.bind(f);
      },
      models: (f) => {
        if (props.modelProvider === 'bedrock') this.grantInvokeModels(f);
      },
      speech: (f) => this.grantSpeech(f),
    };
    /** Function `name`, bound to what FUNCTION_BINDINGS (shared/aws/deployment.ts) says it uses. */
    const fn = (name: FunctionName, onFailure?: IDestination): LambdaFunction => {
      const f = handoffFunction(this, {
        name,
        environment,
        removalPolicy,
        ...(onFailure ? { onFailure } : {}),
      });
      for (const binding of FUNCTION_BINDINGS[name]) binders[binding](f);
      return f;
    };

    // Last resort for a step that gave up: mark the run failed (and say so); if even that fails, the DLQ (alarmed).
    const stepFailed = fn('step-failed', new SqsDestination(bus.deadLetterQueue));
    const step = (name: FunctionName) => fn(name, invokeOnFailure(stepFailed));
    const trigger = step('trigger');
    const executor = step('executor');
    const completer = step('completer');
    const resume = step('resume');
    const app = fn('api');
    const webhook = fn('webhook');
    // Model work off the request path; after its retries an event goes to the dead-letter queue (alarmed).
    const agent = fn('agent', new SqsDestination(bus.deadLetterQueue));
    made.schedules = new HandoffSchedules(this, 'Schedules', { trigger });
    // A schedule that could not be made is told too: its workflow's runs would not start on time.
    const scheduleSync = fn('schedule-sync', invokeOnFailure(stepFailed));
    // Nothing is left stranded: overdue decisions expire, a lost step is dispatched again.
    const sweeper = fn('sweeper');

    // Routing: the bus moves a run from node to node; the API and webhooks start runs.
    bus.scheduleSweep(sweeper, SWEEP_PERIOD);
    bus.routeStep('executor', executor);
    bus.routeStep('completer', completer);
    bus.routeStep('resume', resume);
    bus.routeCarry(resume); // answers take effect as they arrive, in the function that acts on answers
    bus.routeWorkflowChanges(scheduleSync);
    bus.routeAgentWork(agent);
    api.connect({ app, webhook });

    new HandoffAlarms(this, 'Alarms', {
      topic: notifications.topic,
      functions: {
        trigger,
        executor,
        completer,
        resume,
        api: app,
        webhook,
        'schedule-sync': scheduleSync,
        'step-failed': stepFailed,
        sweeper,
        agent,
      },
      deadLetterQueue: bus.deadLetterQueue,
      httpApi: api.httpApi,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', { value: store.table.tableName });
    new CfnOutput(this, 'TopicArn', { value: notifications.topic.topicArn });
    new CfnOutput(this, 'BusName', { value: bus.eventBus.eventBusName });
    new CfnOutput(this, 'WebhookSecretArn', {
      value: secrets.webhookSecret.secretArn,
      description: 'Secret whose value signs webhook bodies (X-Handoff-Signature)',
    });
    new CfnOutput(this, 'CredentialsKeyArn', {
      value: secrets.credentialsKey.keyArn,
      description:
        'KMS key for integration credentials: HANDOFF_KMS_KEY_ID when running `handoff credentials set`',
    });
    new CfnOutput(this, 'ApiKeySecretArn', {
      value: secrets.apiKey.secretArn,
      description: 'Secret whose value is the bearer key for the event feed',
    });
  }

  /**
   * Speech on AWS: exactly Transcribe streaming and Polly's SynthesizeSpeech. Neither call
   * names a resource (Polly's only one is an optional lexicon), so the resource is `*`.
   */
  private grantSpeech(f: LambdaFunction): void {
    f.addEnvironment('HANDOFF_SPEECH_PROVIDER', 'aws');
    f.addToRolePolicy(
      new PolicyStatement({
        actions: [...SPEECH_ACTIONS],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:RequestedRegion': this.region } },
      }),
    );
    if (f.role)
      Validations.of(f.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'transcribe:StartStreamTranscription has no resource type and polly:SynthesizeSpeech only an optional lexicon: both take "*".',
      });
  }

  /** Bedrock model calls (Converse and InvokeModel, streaming or not) on any model or inference profile. */
  private grantInvokeModels(f: LambdaFunction): void {
    const foundationModels = `arn:${this.partition}:bedrock:*::foundation-model/*`;
    const inferenceProfiles = `arn:${this.partition}:bedrock:${this.region}:${this.account}:inference-profile/*`;
    f.addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
        resources: [foundationModels, inferenceProfiles],
      }),
    );
    const reason =
      'The model is a deploy-time choice (modelId, fallbackModelId) and cross-region inference profiles route to foundation models in several regions.';
    if (f.role)
      Validations.of(f.role).acknowledge(
        { id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/*]', reason },
        {
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/*]',
          reason,
        },
      );
  }
}
