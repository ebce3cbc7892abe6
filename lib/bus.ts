import { Duration, Validations } from 'aws-cdk-lib';
import { EventBus, Rule, Schedule, type EventPattern } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFn, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export const EVENT_SOURCE = 'handoff';
/** `detail: { run_id, node }`: run this graph node of this run next. */
export const STEP_DETAIL_TYPE = 'handoff.step';
/** `detail: { decision_id }`: carry out this answered item now, while its run still waits. */
export const CARRY_DETAIL_TYPE = 'handoff.carry';
/** `detail: { workflow_id, change: 'saved' | 'removed' }`: a workflow file changed. */
export const WORKFLOW_DETAIL_TYPE = 'handoff.workflow';
/** `detail: { decision_id }` (learning from an answer) and `{ chat_id, turn_id, message }` (an assistant turn). */
export const AGENT_DETAIL_TYPES = ['handoff.learn', 'handoff.chat-turn'];

/** Graph nodes that run in their own Lambda when a step event names them (the trigger is scheduled). */
export type StepNode = 'executor' | 'completer' | 'resume';

/** Attempts EventBridge makes to hand an event to a target before it goes to the dead-letter queue. */
export const TARGET_RETRY_ATTEMPTS = 4;
export const TARGET_MAX_EVENT_AGE = Duration.hours(2);

/**
 * The event bus that moves a run from node to node, and the rules that route its
 * events. An event EventBridge cannot deliver ends in the dead-letter queue.
 */
export class HandoffBus extends Construct {
  readonly eventBus: EventBus;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.eventBus = new EventBus(this, 'Bus', { description: 'Handoff: steps of runs and workflow changes' });
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue of the bus targets and of the step-failed function.',
    });
  }

  /** Lets `fn` dispatch steps and workflow changes: EVENT_BUS_NAME and events:PutEvents on this bus. */
  bind(fn: LambdaFn): void {
    fn.addEnvironment('EVENT_BUS_NAME', this.eventBus.eventBusName);
    this.eventBus.grantPutEventsTo(fn);
  }

  /** Sends `handoff.step` events for `node` to its function. */
  routeStep(node: StepNode, fn: IFunction): Rule {
    const id = `${node[0]?.toUpperCase() ?? ''}${node.slice(1)}StepRule`;
    return this.route(id, `Handoff: ${node} steps`, fn, {
      source: [EVENT_SOURCE],
      detailType: [STEP_DETAIL_TYPE],
      detail: { node: [node] },
    });
  }

  /** Sends `handoff.carry` events (an answer to carry out while its run waits) to the function that acts on answers. */
  routeCarry(fn: IFunction): Rule {
    return this.route('CarryRule', 'Handoff: answers carried out as they arrive', fn, {
      source: [EVENT_SOURCE],
      detailType: [CARRY_DETAIL_TYPE],
    });
  }

  /** Sends `handoff.workflow` events to the function that keeps schedules in step. */
  routeWorkflowChanges(fn: IFunction): Rule {
    return this.route('WorkflowChangeRule', 'Handoff: workflow saved or removed', fn, {
      source: [EVENT_SOURCE],
      detailType: [WORKFLOW_DETAIL_TYPE],
    });
  }

  /** Sends learning and assistant turns (model work the API hands off) to the agent function. */
  routeAgentWork(fn: IFunction): Rule {
    return this.route('AgentWorkRule', 'Handoff: learning from answers and assistant turns', fn, {
      source: [EVENT_SOURCE],
      detailType: AGENT_DETAIL_TYPES,
    });
  }

  /** Invokes `fn` every `period` (a rule on the default bus: scheduled rules cannot use a custom one). */
  scheduleSweep(fn: IFunction, period: Duration): Rule {
    return new Rule(this, 'SweepRule', {
      description: 'Handoff: sweep for overdue decisions and lost dispatches',
      schedule: Schedule.rate(period),
      targets: [
        new LambdaFunction(fn, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: TARGET_RETRY_ATTEMPTS,
          maxEventAge: period, // a late sweep is replaced by the next one
        }),
      ],
    });
  }

  private route(id: string, description: string, fn: IFunction, eventPattern: EventPattern): Rule {
    return new Rule(this, id, {
      eventBus: this.eventBus,
      description,
      eventPattern,
      targets: [
        new LambdaFunction(fn, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: TARGET_RETRY_ATTEMPTS,
          maxEventAge: TARGET_MAX_EVENT_AGE,
        }),
      ],
    });
  }
}
