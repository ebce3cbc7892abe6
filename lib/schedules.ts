import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';

export interface HandoffSchedulesProps {
  /** What every schedule invokes, with input `{"workflow_id", "schedule"}`. */
  trigger: IFunction;
}

/**
 * Where workflow schedules live (one EventBridge Scheduler schedule per workflow, created
 * at run time by schedule-sync) and the role Scheduler assumes to invoke the trigger.
 */
export class HandoffSchedules extends Construct {
  readonly group: ScheduleGroup;
  readonly role: Role;
  private readonly trigger: IFunction;

  constructor(scope: Construct, id: string, props: HandoffSchedulesProps) {
    super(scope, id);
    this.trigger = props.trigger;
    // Named after the stack (unique per account and region) so the policies below read plainly.
    // Always deleted with the stack (and its schedules with it): a kept schedule would keep firing at a
    // deleted trigger, and schedule-sync recreates every schedule from the workflows when they are saved.
    this.group = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: Stack.of(this).stackName,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'SchedulerRole', {
      description: 'Assumed by EventBridge Scheduler to start Handoff runs',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    // The unqualified ARN only: schedules target the function, never a version.
    props.trigger.grantInvokeLatestVersion(this.role);
  }

  /**
   * Lets `fn` keep schedules in step: the group, the role Scheduler assumes and the trigger
   * it invokes (SCHEDULE_GROUP_NAME, SCHEDULER_ROLE_ARN, TRIGGER_FUNCTION_ARN), and the grants below.
   */
  bind(fn: LambdaFunction): void {
    fn.addEnvironment('SCHEDULE_GROUP_NAME', this.group.scheduleGroupName);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', this.role.roleArn);
    fn.addEnvironment('TRIGGER_FUNCTION_ARN', this.trigger.functionArn);
    this.grantManage(fn);
  }

  /** Lets `fn` create, read, update and delete schedules in the group, and hand Scheduler the role. */
  grantManage(fn: IFunction): void {
    this.group.grants.readSchedules(fn);
    this.group.grants.writeSchedules(fn);
    this.group.grants.deleteSchedules(fn);
    this.role.grantPassRole(fn.grantPrincipal);
    if (fn.role)
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${Stack.of(this).stackName}/*]`,
        reason:
          'One schedule per workflow, created at run time: the names are not known at deploy time, the group is.',
      });
  }
}
