import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  RUNS_BY_WORKFLOW_INDEX as BY_WORKFLOW,
  STATUS_INDEX,
  TABLE_SCHEMA,
} from '../shared/store/table-schema.ts';

/**
 * Records waiting on something (pending decisions, running and waiting runs, unsettled claims),
 * keyed by workspace; the store writes and reads it.
 */
export const PENDING_INDEX = STATUS_INDEX.name;
/** A workspace's runs of one workflow, newest first (`handoff runs --workflow ID`). */
export const RUNS_BY_WORKFLOW_INDEX = BY_WORKFLOW.name;
/** Epoch seconds after which DynamoDB may delete the item (expired decisions, spent links). */
export const TTL_ATTRIBUTE = TABLE_SCHEMA.ttlAttribute;

const READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

export interface HandoffTableProps {
  /** RETAIN also turns on deletion protection. */
  removalPolicy: RemovalPolicy;
}

/** The single table of the store, built from TABLE_SCHEMA (which `handoff store init` also uses). */
export class HandoffTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: HandoffTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });
    for (const index of TABLE_SCHEMA.indexes)
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
  }

  /**
   * Points `fn` at the table (HANDOFF_TABLE, USE_DYNAMODB) and grants what it needs:
   * reads and writes, or reads only.
   */
  bind(fn: LambdaFunction, access: 'read' | 'readWrite' = 'readWrite'): void {
    fn.addEnvironment('HANDOFF_TABLE', this.table.tableName);
    fn.addEnvironment('USE_DYNAMODB', 'true');
    if (access === 'read') this.grantRead(fn);
    else this.grantReadWrite(fn);
  }

  /** Item reads on the table and its indexes (each named, not `index/*`). */
  grantRead(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({ grantee, actions: READ_ACTIONS, resourceArns: this.arns() });
  }

  /** Item reads and writes on the table and its indexes (each named, not `index/*`). */
  grantReadWrite(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...READ_ACTIONS, ...WRITE_ACTIONS],
      resourceArns: this.arns(),
    });
  }

  private arns(): string[] {
    const arn = this.table.tableArn;
    return [arn, ...TABLE_SCHEMA.indexes.map((index) => `${arn}/index/${index.name}`)];
  }
}
