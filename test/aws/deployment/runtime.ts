/**
 * Lambda's side of a deployment: one warm container (a child `node`) per function, whose
 * environment is exactly the template's for that function plus what the Lambda runtime
 * itself sets (region, the role's credentials, the function's name and memory) and the one
 * stand-in for the AWS network (AWS_ENDPOINT_URL). Nothing of the test process leaks in.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCOUNT, REGION, type DeployedFunction } from './template.ts';

const RUNNER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lambda-runner.mjs');

/** An invocation's outcome, as Lambda reports it. */
export type Outcome = { ok: true; result: unknown } | { ok: false; error: { name: string; message: string } };

/** The access key id a function's role's credentials carry (how the gateway tells callers apart). */
export function accessKeyOf(fn: DeployedFunction): string {
  return `ASIA${fn.logicalId.toUpperCase().replace(/[^A-Z0-9]/g, '')}`.slice(0, 20);
}

/** The environment Lambda gives function `fn`'s process. */
/** Where the stand-in AWS network answers: one endpoint, and an HTTP/2 one for Bedrock's streams. */
export interface Network {
  endpoint: string;
  http2: string;
}

export function runtimeEnv(fn: DeployedFunction, network: Network): Record<string, string> {
  return {
    ...fn.environment,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ACCESS_KEY_ID: accessKeyOf(fn),
    AWS_SECRET_ACCESS_KEY: 'role-secret',
    AWS_SESSION_TOKEN: 'role-session',
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memory),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    LAMBDA_TASK_ROOT: fn.codeDir,
    TZ: ':UTC',
    PATH: '/usr/local/bin:/usr/bin:/bin',
    // The AWS network, stood in for: every SDK client of the function talks to the gateway.
    AWS_ENDPOINT_URL: network.endpoint,
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: network.http2,
  };
}

/** One warm container of a function. */
export class Container {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<string, (o: Outcome) => void>();
  /** Everything the function wrote (its log lines), for the test's messages. */
  output = '';

  constructor(
    readonly fn: DeployedFunction,
    private readonly network: Network,
  ) {}

  /** Runs one invocation (starting the container cold on first use); `clockOffsetMs`: it runs that much later. */
  async invoke(event: unknown, clockOffsetMs = 0): Promise<Outcome> {
    await this.start();
    const id = randomUUID();
    const context = {
      functionName: this.fn.functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: this.fn.arn,
      memoryLimitInMB: String(this.fn.memory),
      awsRequestId: id,
      logGroupName: `/aws/lambda/${this.fn.functionName}`,
      logStreamName: `2026/01/01/[$LATEST]${id.slice(0, 8)}`,
      deadline: Date.now() + clockOffsetMs + this.fn.timeoutSeconds * 1000,
    };
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child!.send({ id, event, context, clockOffsetMs });
    });
  }

  private start(): Promise<void> {
    this.ready ??= new Promise((resolve, reject) => {
      const [file, exportName] = this.fn.handler.split('.') as [string, string];
      if (file !== 'index') throw new Error(`handler ${this.fn.handler} is not index.<export>`);
      const child = fork(RUNNER, [this.fn.codeDir, exportName], {
        env: runtimeEnv(this.fn, this.network),
        execArgv: [],
        cwd: this.fn.codeDir,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      this.child = child;
      child.stdout!.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
      child.stderr!.on('data', (d: Buffer) => (this.output += d.toString('utf8')));
      child.on('message', (m: { init?: boolean; id?: string; error?: { message: string } } & Outcome) => {
        if (m.init === true) resolve();
        else if (m.init === false) reject(new Error(`${this.fn.name} failed to start: ${m.error?.message}`));
        else if (m.id) {
          this.pending.get(m.id)?.(m);
          this.pending.delete(m.id);
        }
      });
      child.on('exit', (code) => {
        for (const done of this.pending.values())
          done({
            ok: false,
            error: { name: 'Runtime.ExitError', message: `${this.fn.name} exited with ${code}` },
          });
        this.pending.clear();
        this.ready = undefined;
      });
    });
    return this.ready;
  }

  stop(): void {
    this.child?.kill('SIGKILL');
  }
}

export { ACCOUNT };
