/**
 * CloudWatch's side of a deployment, from the template: the alarms (a function's Errors, the
 * dead-letter queue's visible messages, the API's 5xx) go to ALARM on their first datapoint
 * (threshold 1, one period) and publish to their actions as CloudWatch does, authorised by
 * the topic's resource policy and its key's key policy for `cloudwatch.amazonaws.com`: a
 * stack whose policies shut CloudWatch out would tell nobody, and this says so.
 */
import { allows, type Call } from './iam.ts';
import { ACCOUNT, REGION, type Deployment, type Statement } from './template.ts';

export interface AlarmSpec {
  name: string;
  description: string;
  namespace: string;
  metric: string;
  dimensions: Record<string, string>;
  actions: string[];
}

/** The template's alarms, resolved. */
export function alarmsOf(d: Deployment): AlarmSpec[] {
  return Object.values(d.template.Resources)
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => {
      const p = d.resolve(r.Properties as never) as Record<string, unknown>;
      return {
        name: String(p.AlarmName),
        description: String(p.AlarmDescription ?? ''),
        namespace: String(p.Namespace),
        metric: String(p.MetricName),
        dimensions: Object.fromEntries(
          ((p.Dimensions ?? []) as { Name: string; Value: string }[]).map((x) => [x.Name, String(x.Value)]),
        ),
        actions: ((p.AlarmActions ?? []) as string[]).map(String),
      };
    });
}

interface RawStatement {
  Effect: 'Allow' | 'Deny';
  Principal?: unknown;
  Action: string | string[];
  Resource?: string | string[];
  Condition?: Statement['Condition'];
}

/** Whether resource policies `statements` let AWS service `service` make `call`. */
export function serviceAllows(
  statements: readonly RawStatement[],
  service: string,
  call: Call,
  context: Record<string, string>,
): boolean {
  const names = (p: unknown): string[] =>
    Array.isArray(p) ? p.map(String) : p === undefined ? [] : [String(p)];
  const forService = statements
    .filter((s) => {
      const principal = s.Principal;
      if (principal === '*') return true;
      return names((principal as { Service?: unknown } | undefined)?.Service).includes(service);
    })
    .map((s): Statement => ({
      Effect: s.Effect,
      Action: names(s.Action),
      Resource: s.Resource === undefined ? ['*'] : names(s.Resource),
      ...(s.Condition ? { Condition: s.Condition } : {}),
    }));
  return allows(forService, call, context);
}

/** The statements of the resource policies on `topicArn` (SNS topic policies) and on key `keyArn` (its key policy). */
export function resourcePolicies(
  d: Deployment,
  topicArn: string,
  keyArn: string,
): {
  topic: RawStatement[];
  key: RawStatement[];
} {
  const topic: RawStatement[] = [];
  const key: RawStatement[] = [];
  for (const [id, r] of Object.entries(d.template.Resources)) {
    if (r.Type === 'AWS::SNS::TopicPolicy') {
      const p = d.resolve(r.Properties as never) as unknown as {
        Topics: string[];
        PolicyDocument: { Statement: RawStatement[] };
      };
      if (p.Topics.includes(topicArn)) topic.push(...p.PolicyDocument.Statement);
    }
    if (r.Type === 'AWS::KMS::Key' && d.getAtt(id, 'Arn') === keyArn) {
      const p = d.resolve(r.Properties as never) as unknown as { KeyPolicy: { Statement: RawStatement[] } };
      key.push(...p.KeyPolicy.Statement);
    }
  }
  return { topic, key };
}

/** What CloudWatch knows of each alarm's source: its ARN and account, for the policies' conditions. */
export function alarmContext(alarm: AlarmSpec): Record<string, string> {
  return {
    'aws:SourceAccount': ACCOUNT,
    'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:${alarm.name}`,
    'aws:SecureTransport': 'true',
  };
}
