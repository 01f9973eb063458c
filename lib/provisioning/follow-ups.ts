// Integrations that failed for an account, kept open until a later run
// provisions them, and billing the payment webhook would not decide alone:
// the list an operator works through.
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Metrics } from '../metrics.ts';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';

/**
 * Counted each time a follow-up is recorded (opened, or failed once more), by
 * Stage and by Stage and Subject: what the follow-ups alarm watches
 * (infra/operations.yml). An onboarding integration recorded here is the one
 * its run then holds for redrive.
 */
export const FOLLOW_UPS_RECORDED = 'FollowUpsRecorded';

/** What is waiting: an onboarding integration (by its name in lib/onboarding/outcomes.ts), or 'billing' (payments/billing.ts). */
export type FollowUpSubject = string;

export interface FollowUpIssue {
  integration: FollowUpSubject;
  message: string;
  context: Record<string, unknown>;
}

export interface FollowUp {
  account_id: string;
  integration: FollowUpSubject;
  state: 'open' | 'resolved';
  message: string;
  context: Record<string, unknown>;
  run_id: string;
  first_failed_at: string;
  last_failed_at: string;
  failures: number;
  resolved_at?: string;
}

export interface FollowUps {
  /** `runId` names what found the issue: an onboarding run, or a webhook event's key. */
  open(accountId: string, runId: string, error: FollowUpIssue): Promise<void>;
  /** Closes an open follow-up once the integration succeeds. */
  resolve(accountId: string, integration: FollowUpSubject): Promise<void>;
  listOpen(limit?: number): Promise<FollowUp[]>;
}

export function dynamodbFollowUps(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'follow_ups'>; metrics: Metrics; now?: () => Date }): FollowUps {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/follow_ups:UpdateItem';
  'iam:dynamodb:table/follow_ups/index/byState:Query';
  const { db, tables } = deps;
  const now = () => (deps.now ?? (() => new Date()))().toISOString();
  return {
    async open(accountId, runId, error) {
      await db.send(
        new UpdateCommand({
          TableName: tables.follow_ups,
          Key: { account_id: accountId, integration: error.integration },
          UpdateExpression:
            'SET #state = :open, message = :message, #context = :context, run_id = :run, last_failed_at = :now, first_failed_at = if_not_exists(first_failed_at, :now) ADD failures :one REMOVE resolved_at',
          ExpressionAttributeNames: { '#state': 'state', '#context': 'context' },
          ExpressionAttributeValues: { ':open': 'open', ':message': error.message, ':context': error.context, ':run': runId, ':now': now(), ':one': 1 },
        }),
      );
      deps.metrics.count(FOLLOW_UPS_RECORDED, { Subject: error.integration }, { message: 'follow-up recorded', accountId, runId });
    },
    async resolve(accountId, integration) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName: tables.follow_ups,
            Key: { account_id: accountId, integration },
            UpdateExpression: 'SET #state = :resolved, resolved_at = :now',
            ConditionExpression: '#state = :open',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':resolved': 'resolved', ':open': 'open', ':now': now() },
          }),
        ),
      );
    },
    async listOpen(limit = 100) {
      const res = await db.send(
        new QueryCommand({
          TableName: tables.follow_ups,
          IndexName: 'byState',
          KeyConditionExpression: '#state = :open',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':open': 'open' },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (res.Items ?? []) as FollowUp[];
    },
  };
}
