import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface HandoffNotificationsProps {
  /** Subscribes this address (SNS sends a confirmation mail first). */
  email?: string;
  removalPolicy: RemovalPolicy;
}

/**
 * The topic that carries "a run needs you" and "a run finished" notices, and the
 * stack's alarms. Encrypted with a customer managed key because CloudWatch alarms
 * cannot publish to a topic under the AWS managed `alias/aws/sns` key.
 */
export class HandoffNotifications extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: HandoffNotificationsProps) {
    super(scope, id);
    const { account, region, partition } = Stack.of(this);

    this.key = new Key(this, 'TopicKey', {
      description: 'Handoff: encrypts the notification topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: props.removalPolicy,
    });
    // CloudWatch calls KMS itself when an alarm publishes to an encrypted topic.
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );

    this.topic = new Topic(this, 'Topic', {
      displayName: 'Handoff',
      masterKey: this.key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarms',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
  }

  /** Lets `fn` send notices: NOTIFY_CHANNEL=sns, NOTIFY_TOPIC_ARN and the publish grant below. */
  bind(fn: LambdaFunction): void {
    fn.addEnvironment('NOTIFY_CHANNEL', 'sns');
    fn.addEnvironment('NOTIFY_TOPIC_ARN', this.topic.topicArn);
    this.grantPublish(fn);
  }

  /** sns:Publish on the topic, and the data-key use on its key that publishing to an encrypted topic needs. */
  grantPublish(fn: IFunction & IGrantable): void {
    this.topic.grantPublish(fn);
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason:
          'Publishing to a KMS-encrypted topic needs GenerateDataKey* (a family of data-key calls) on the topic key only.',
      });
  }
}
