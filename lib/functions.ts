import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  AssetHashType,
  AssetStaging,
  DockerImage,
  Duration,
  type RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  type IDestination,
  type IFunction,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PROJECT_ROOT } from './bundle.ts';

export { PROJECT_ROOT };

interface FunctionSpec {
  /** Construct id prefix. */
  id: string;
  memorySize: number;
  timeout: Duration;
  description: string;
}

/**
 * Every Lambda of the stack, its size and why. The step functions that run an agent
 * (executor, resume) get room for a model conversation; the rest are bookkeeping.
 */
export const FUNCTION_SPECS = {
  trigger: {
    id: 'Trigger',
    memorySize: 256,
    timeout: Duration.seconds(60),
    description: 'Handoff: starts a scheduled run and runs its trigger node',
  },
  executor: {
    id: 'Executor',
    memorySize: 1024,
    timeout: Duration.minutes(15),
    description: 'Handoff: runs the executor node (agent + gate) of a run',
  },
  completer: {
    id: 'Completer',
    memorySize: 256,
    timeout: Duration.seconds(60),
    description: 'Handoff: runs the completer node (audit + completion notice)',
  },
  resume: {
    id: 'Resume',
    memorySize: 1024,
    timeout: Duration.minutes(15),
    description: "Handoff: resumes a paused run with a person's decisions",
  },
  api: {
    id: 'Api',
    memorySize: 512,
    timeout: Duration.seconds(29),
    description: 'Handoff: HTTP app (API, decision pages, status page)',
  },
  webhook: {
    id: 'Webhook',
    memorySize: 256,
    timeout: Duration.seconds(29),
    description: 'Handoff: signed webhooks that start runs',
  },
  'schedule-sync': {
    id: 'ScheduleSync',
    memorySize: 256,
    timeout: Duration.seconds(30),
    description: "Handoff: keeps each workflow's EventBridge Scheduler schedule in step",
  },
  'step-failed': {
    id: 'StepFailed',
    memorySize: 256,
    timeout: Duration.seconds(30),
    description: 'Handoff: marks a run failed when one of its steps gave up',
  },
  agent: {
    id: 'Agent',
    memorySize: 1024,
    timeout: Duration.minutes(15),
    description: 'Handoff: model work off the request path (learning from answers, assistant turns)',
  },
  sweeper: {
    id: 'Sweeper',
    memorySize: 256,
    timeout: Duration.seconds(60),
    description:
      'Handoff: expires overdue decisions, re-sends dispatches lost between steps, keeps schedules in step',
  },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof FUNCTION_SPECS;

/** Retries of an asynchronous invocation before it goes to its failure destination. */
export const ASYNC_RETRY_ATTEMPTS = 2;
/** Oldest an asynchronous event may get before it is sent to the failure destination unprocessed. */
export const ASYNC_MAX_EVENT_AGE = Duration.hours(2);
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

export interface HandoffFunctionProps {
  name: FunctionName;
  environment: Record<string, string>;
  removalPolicy: RemovalPolicy;
  /** Where an asynchronous invocation goes after its retries; sets the async invoke config. */
  onFailure?: IDestination;
}

/**
 * One handler from `lambdas/<name>.ts`, bundled by lib/bundle.ts (its lazy paths split into
 * chunks): Node 22 on arm64, its own role (permissions are granted by the stack, nothing by
 * default) and its own log group with a retention.
 */
export function handoffFunction(scope: Construct, props: HandoffFunctionProps): LambdaFunction {
  const spec = FUNCTION_SPECS[props.name];
  const logGroup = new LogGroup(scope, `${spec.id}Logs`, {
    retention: LOG_RETENTION,
    removalPolicy: props.removalPolicy,
  });
  const role = new Role(scope, `${spec.id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs the Handoff ${props.name} function`,
  });
  logGroup.grantWrite(role);

  const fn = new LambdaFunction(scope, spec.id, {
    code: handlerCode(props.name),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: spec.memorySize,
    timeout: spec.timeout,
    description: spec.description,
    environment: props.environment,
    role,
    logGroup,
    ...(props.onFailure
      ? { onFailure: props.onFailure, retryAttempts: ASYNC_RETRY_ATTEMPTS, maxEventAge: ASYNC_MAX_EVENT_AGE }
      : {}),
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 is the runtime the handlers are built and tested for (target node22); move up deliberately.',
  });
  return fn;
}

/**
 * An on-failure destination that invokes `target` with the whole invocation record
 * (request payload and error). Unlike `LambdaDestination`, the source may invoke only
 * the unqualified function, not `target:*`.
 */
export function invokeOnFailure(target: IFunction): IDestination {
  return {
    bind: (_scope, source) => {
      target.grantInvokeLatestVersion(source);
      return { destination: target.functionArn };
    },
  };
}

const BUNDLE_CLI = path.join(PROJECT_ROOT, 'lib', 'bundle-cli.ts');

/**
 * The code of function `name` for the stack: bundled on this machine at synth time by
 * lib/bundle-cli.ts (lib/bundle.ts, then the bindings check) in a child `node`, as CDK's own
 * NodejsFunction runs the esbuild binary (an esbuild plugin needs esbuild's asynchronous API).
 * Never falls back to Docker.
 */
export function handlerCode(name: string): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('dummy'), // never pulled: local bundling always answers
      // What runs, and (being part of CDK's bundling cache key) what keeps each function's code its own.
      command: ['node', '--import', 'tsx', 'lib/bundle-cli.ts', name, AssetStaging.BUNDLING_OUTPUT_DIR],
      local: {
        tryBundle(outputDir: string): boolean {
          const child = spawnSync(process.execPath, ['--import', 'tsx', BUNDLE_CLI, name, outputDir], {
            cwd: PROJECT_ROOT,
            stdio: ['ignore', 'inherit', 'inherit'],
          });
          if (child.status !== 0)
            throw new Error(`bundling lambdas/${name}.ts failed (exit ${child.status ?? child.signal})`);
          return true;
        },
      },
    },
  });
}
