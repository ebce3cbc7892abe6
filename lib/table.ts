import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { STATUS_INDEX } from '../shared/store/dynamodb-store.ts';

/**
 * Records waiting on something (pending decisions, running and waiting runs): `gsi1pk` =
 * `<collection>#<status>`, `gsi1sk` = when it started; the store writes and reads it.
 */
export const PENDING_INDEX = STATUS_INDEX;
/** A workflow's runs by time: `gsi2pk` = workflow id, `gsi2sk` = started time. */
export const RUNS_BY_WORKFLOW_INDEX = 'runs-by-workflow';
/** Epoch seconds after which DynamoDB may delete the item (expired decisions, spent links). */
export const TTL_ATTRIBUTE = 'ttl';

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

/** The single table of the store: `pk` = collection, `sk` = record id. */
export class HandoffTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: HandoffTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: PENDING_INDEX,
      partitionKey: { name: 'gsi1pk', type: AttributeType.STRING },
      sortKey: { name: 'gsi1sk', type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: RUNS_BY_WORKFLOW_INDEX,
      partitionKey: { name: 'gsi2pk', type: AttributeType.STRING },
      sortKey: { name: 'gsi2sk', type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
  }

  /** Item reads on the table and its two indexes (named, not `index/*`). */
  grantRead(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({ grantee, actions: READ_ACTIONS, resourceArns: this.arns() });
  }

  /** Item reads and writes on the table and its two indexes (named, not `index/*`). */
  grantReadWrite(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...READ_ACTIONS, ...WRITE_ACTIONS],
      resourceArns: this.arns(),
    });
  }

  private arns(): string[] {
    const arn = this.table.tableArn;
    return [arn, `${arn}/index/${PENDING_INDEX}`, `${arn}/index/${RUNS_BY_WORKFLOW_INDEX}`];
  }
}
