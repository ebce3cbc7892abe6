import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface HandoffAlarmsProps {
  topic: ITopic;
  /** Each function gets an "any error in 5 minutes" alarm, named after its key. */
  functions: Record<string, IFunction>;
  /** Anything in the queue is an event nobody handled. */
  deadLetterQueue: IQueue;
  httpApi: HttpApi;
}

const PERIOD = Duration.minutes(5);

/** Alarms that tell the topic's subscribers something went wrong that nobody else will notice. */
export class HandoffAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: HandoffAlarmsProps) {
    super(scope, id);
    const action = new SnsAction(props.topic);
    const prefix = Stack.of(this).stackName;

    const add = (alarmId: string, name: string, description: string, metric: IMetric, threshold: number) => {
      const alarm = new Alarm(this, alarmId, {
        alarmName: `${prefix}-${name}`,
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.alarms.push(alarm);
    };

    for (const [name, fn] of Object.entries(props.functions)) {
      const id = name.replace(/(^|-)(\w)/g, (_m, _d: string, c: string) => c.toUpperCase());
      add(
        `${id}Errors`,
        `${name}-errors`,
        `The ${name} function failed at least once in 5 minutes; see its log group.`,
        fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        1,
      );
    }
    add(
      'DeadLettersVisible',
      'dead-letters',
      'Events EventBridge or Lambda could not deliver are waiting in the dead-letter queue.',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: 'Maximum',
      }),
      1,
    );
    add(
      'Api5xx',
      'api-5xx',
      'The HTTP API answered with a server error (5xx) in the last 5 minutes.',
      props.httpApi.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      1,
    );
  }
}
