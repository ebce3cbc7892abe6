/**
 * A synthesized template read as a deployment would run it: each function's handler, code
 * (the asset esbuild made), environment and IAM statements, with every Ref and GetAtt
 * resolved to the names and ARNs this harness gives the resources (as CloudFormation would).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { FUNCTION_SPECS, type FunctionName } from '../../../lib/functions.ts';

export const REGION = 'us-east-1';
export const ACCOUNT = '123456789012';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
}
export interface Template {
  Resources: Record<string, Resource>;
}

/** An IAM statement with every intrinsic resolved. */
export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface DeployedFunction {
  name: FunctionName;
  logicalId: string;
  functionName: string;
  arn: string;
  roleArn: string;
  handler: string;
  /** The folder holding `index.mjs` and its chunks. */
  codeDir: string;
  environment: Record<string, string>;
  statements: Statement[];
  memory: number;
  timeoutSeconds: number;
  /** Retries of an asynchronous invocation, and where it goes after them (an ARN), if configured. */
  asyncRetries: number;
  onFailure: string | undefined;
}

export interface Route {
  method: string;
  /** `/api/{proxy+}`, `/decide/{id}`, or `$default`. */
  path: string;
  iam: boolean;
  target: string;
}

export interface EventRule {
  logicalId: string;
  busName: string | undefined;
  pattern: Record<string, Json> | undefined;
  /** A scheduled rule's expression (`rate(5 minutes)`), on the default bus. */
  schedule: string | undefined;
  targets: string[];
}

/** What the template says, resolved. */
export class Deployment {
  readonly functions = new Map<FunctionName, DeployedFunction>();
  readonly routes: Route[] = [];
  readonly rules: EventRule[] = [];

  constructor(
    readonly template: Template,
    private readonly outdir: string,
    private readonly apiEndpoint: string,
    /** Sets this deployment's resource names apart from another's on the same DynamoDB Local. */
    readonly prefix = '',
    /** The stack's name (`handoff-<stage>`): AWS::StackName. */
    readonly stackName = 'handoff-dev',
  ) {
    for (const [id, r] of Object.entries(template.Resources)) {
      if (r.Type === 'AWS::Lambda::Function') this.addFunction(id, r);
      if (r.Type === 'AWS::Events::Rule') this.addRule(id, r);
    }
    for (const r of Object.values(template.Resources))
      if (r.Type === 'AWS::ApiGatewayV2::Route') this.addRoute(r);
  }

  /** The harness's name for a resource: short, stable, derived from its logical id. */
  private nameOf(logicalId: string): string {
    return `${this.prefix}${logicalId.toLowerCase()}`;
  }

  /** The single resource of a type (the table, the topic), by logical id. */
  only(type: string, idPrefix = ''): string {
    const ids = Object.entries(this.template.Resources)
      .filter(([id, r]) => r.Type === type && id.startsWith(idPrefix))
      .map(([id]) => id);
    if (ids.length !== 1) throw new Error(`expected one ${type} ${idPrefix}, found ${ids.length}`);
    return ids[0]!;
  }

  /** Ref of a logical id, as CloudFormation gives it. */
  ref(id: string): string {
    const r = this.template.Resources[id];
    if (!r) throw new Error(`Ref to unknown resource ${id}`);
    const name = this.nameOf(id);
    switch (r.Type) {
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${name}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`;
      case 'AWS::KMS::Key':
        return `${name.slice(0, 8)}-0000-4000-8000-${name.padEnd(12, '0').slice(-12)}`;
      case 'AWS::Scheduler::ScheduleGroup':
        return String(this.resolve(r.Properties?.Name ?? name));
      case 'AWS::ApiGatewayV2::Api':
        return name.slice(0, 10);
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
      default:
        return name; // tables, buses, roles, functions, log groups: their names
    }
  }

  /** Fn::GetAtt of a logical id. */
  getAtt(id: string, attribute: string): string {
    const r = this.template.Resources[id];
    if (!r) throw new Error(`GetAtt on unknown resource ${id}`);
    const name = this.ref(id);
    if (attribute === 'Arn') {
      const arns: Record<string, string> = {
        'AWS::DynamoDB::Table': `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`,
        'AWS::KMS::Key': `arn:aws:kms:${REGION}:${ACCOUNT}:key/${name}`,
        'AWS::Events::EventBus': `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`,
        'AWS::SQS::Queue': `arn:aws:sqs:${REGION}:${ACCOUNT}:${this.nameOf(id)}`,
        'AWS::IAM::Role': `arn:aws:iam::${ACCOUNT}:role/${name}`,
        'AWS::Lambda::Function': `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`,
        'AWS::Logs::LogGroup': `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}:*`,
        'AWS::Scheduler::ScheduleGroup': `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${name}`,
      };
      const arn = arns[r.Type];
      if (arn) return arn;
    }
    if (r.Type === 'AWS::ApiGatewayV2::Api' && attribute === 'ApiEndpoint') return this.apiEndpoint;
    if (r.Type === 'AWS::Events::EventBus' && attribute === 'Name') return name;
    if (r.Type === 'AWS::SQS::Queue' && attribute === 'QueueName') return this.nameOf(id);
    throw new Error(`GetAtt ${id}.${attribute} (${r.Type}) is not resolved by this harness`);
  }

  /** Resolves intrinsics (Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split, Fn::Sub, pseudo parameters). */
  resolve(value: Json | undefined): Json {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value ?? null;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [key] = keys as [string];
      const arg = value[key]!;
      if (key === 'Ref') return this.pseudo(String(arg)) ?? this.ref(String(arg));
      if (key === 'Fn::GetAtt') {
        const [id, attr] = Array.isArray(arg) ? arg.map(String) : String(arg).split('.');
        return this.getAtt(id!, attr!);
      }
      if (key === 'Fn::Join') {
        const [sep, parts] = arg as [string, Json[]];
        return (this.resolve(parts) as Json[]).map(String).join(sep);
      }
      if (key === 'Fn::Select') {
        const [i, list] = arg as [number, Json];
        return (this.resolve(list) as Json[])[Number(i)] ?? null;
      }
      if (key === 'Fn::Split') {
        const [sep, text] = arg as [string, Json];
        return String(this.resolve(text)).split(sep);
      }
      if (key === 'Fn::Sub')
        return String(arg).replace(/\$\{([^}]+)\}/g, (_, v: string) => {
          const [id, attr] = v.split('.');
          return attr ? this.getAtt(id!, attr) : (this.pseudo(id!) ?? this.ref(id!));
        });
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
  }

  private pseudo(name: string): string | undefined {
    return {
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.stackName,
    }[name];
  }

  /** Every statement of the IAM policies attached to role `roleId`, resolved. */
  statementsOf(roleId: string): Statement[] {
    const list = (v: Json): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);
    return Object.values(this.template.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((r) => ((r.Properties?.Roles ?? []) as { Ref: string }[]).some((x) => x.Ref === roleId))
      .flatMap((r) => (this.resolve(r.Properties!.PolicyDocument!) as { Statement: Json[] }).Statement)
      .map((s): Statement => {
        const st = s as Record<string, Json>;
        return {
          Effect: st.Effect as 'Allow' | 'Deny',
          Action: list(st.Action!),
          Resource: list(st.Resource!),
          ...(st.Condition ? { Condition: st.Condition as NonNullable<Statement['Condition']> } : {}),
        };
      });
  }

  /** The function an ARN (qualified or not) names. */
  functionByArn(arn: string): DeployedFunction | undefined {
    const bare = arn.replace(/:(\$LATEST|\d+)$/, '');
    return [...this.functions.values()].find((f) => f.arn === bare);
  }

  private addFunction(id: string, r: Resource): void {
    const entry = Object.entries(FUNCTION_SPECS).find(([, spec]) =>
      new RegExp(`^${spec.id}[0-9A-F]{8}$`).test(id),
    );
    if (!entry) throw new Error(`function ${id} is none of FUNCTION_SPECS`);
    const name = entry[0] as FunctionName;
    const p = r.Properties!;
    const key = String((p.Code as { S3Key: Json }).S3Key);
    const codeDir = path.join(this.outdir, `asset.${key.replace(/\.zip$/, '')}`);
    if (!existsSync(path.join(codeDir, 'index.mjs'))) throw new Error(`no bundle for ${name} at ${codeDir}`);
    const roleId = (p.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const invokeConfig = Object.values(this.template.Resources).find(
      (c) =>
        c.Type === 'AWS::Lambda::EventInvokeConfig' &&
        (c.Properties?.FunctionName as { Ref?: string }).Ref === id,
    );
    const destination = (invokeConfig?.Properties?.DestinationConfig as Record<string, Json> | undefined)
      ?.OnFailure as { Destination: Json } | undefined;
    this.functions.set(name, {
      name,
      logicalId: id,
      functionName: this.ref(id),
      arn: this.getAtt(id, 'Arn'),
      roleArn: this.getAtt(roleId, 'Arn'),
      handler: String(p.Handler),
      codeDir,
      environment: this.resolve((p.Environment as { Variables: Json }).Variables) as Record<string, string>,
      statements: this.statementsOf(roleId),
      memory: Number(p.MemorySize),
      timeoutSeconds: Number(p.Timeout),
      // Lambda's default for asynchronous invocations is 2 retries.
      asyncRetries: Number(invokeConfig?.Properties?.MaximumRetryAttempts ?? 2),
      onFailure: destination ? String(this.resolve(destination.Destination)) : undefined,
    });
  }

  private addRule(id: string, r: Resource): void {
    const p = r.Properties!;
    this.rules.push({
      logicalId: id,
      busName: p.EventBusName === undefined ? undefined : String(this.resolve(p.EventBusName)),
      pattern: p.EventPattern as Record<string, Json> | undefined,
      schedule: p.ScheduleExpression === undefined ? undefined : String(p.ScheduleExpression),
      targets: ((p.Targets ?? []) as { Arn: Json }[]).map((t) => String(this.resolve(t.Arn))),
    });
  }

  private addRoute(r: Resource): void {
    const p = r.Properties!;
    const key = String(p.RouteKey);
    const [method, routePath] =
      key === '$default' ? ['ANY', '$default'] : (key.split(' ') as [string, string]);
    const target = String(this.resolve(p.Target ?? null)); // integrations/<id>
    const integrationId = target.split('/').pop()!;
    const integration = Object.entries(this.template.Resources).find(
      ([iid, x]) => x.Type === 'AWS::ApiGatewayV2::Integration' && this.nameOf(iid) === integrationId,
    );
    const uri = integration?.[1].Properties?.IntegrationUri;
    this.routes.push({
      method,
      path: routePath,
      iam: p.AuthorizationType === 'AWS_IAM',
      target: String(this.resolve(uri ?? null)),
    });
  }
}
