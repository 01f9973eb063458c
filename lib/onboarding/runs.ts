import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { OnboardingResult, StepReport } from './outcomes.ts';

export interface RunRecord {
  run_id: string;
  account_id: string;
  status: 'running' | 'succeeded' | 'failed';
  /** The workflow (state machine) the run belongs to, when not onboarding-v2's. */
  workflow?: string;
  /** The execution attempt (its redrive count) that wrote the result. */
  attempt: number;
  result?: OnboardingResult;
  started_at: string;
  finished_at?: string;
}

export interface RunStore {
  /** Notes that a run exists for the account (once; later calls change nothing). True when this call noted it. */
  begin(runId: string, accountId: string, workflow?: string): Promise<boolean>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** Stores a result unless a later attempt already stored one. */
  saveResult(runId: string, accountId: string, attempt: number, result: OnboardingResult): Promise<void>;
  recordStep(runId: string, report: StepReport): Promise<void>;
  steps(runId: string): Promise<StepReport[]>;
}

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'onboarding_runs'>; now?: () => Date };

export function dynamodbRuns({ db, tables, now = () => new Date() }: Deps): RunStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/onboarding_runs:GetItem,PutItem,Query,UpdateItem';
  const TableName = tables.onboarding_runs;
  return {
    async begin(runId, accountId, workflow) {
      return applied(
        db.send(
          new PutCommand({
            TableName,
            Item: { run_id: runId, item: 'run', account_id: accountId, status: 'running', attempt: -1, started_at: now().toISOString(), workflow },
            ConditionExpression: 'attribute_not_exists(run_id)',
          }),
        ),
      );
    },

    async get(runId) {
      const res = await db.send(new GetCommand({ TableName, Key: { run_id: runId, item: 'run' }, ConsistentRead: true }));
      return res.Item as RunRecord | undefined;
    },

    async saveResult(runId, accountId, attempt, result) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { run_id: runId, item: 'run' },
            UpdateExpression:
              'SET account_id = :account, #status = :status, attempt = :attempt, #result = :result, finished_at = :now, started_at = if_not_exists(started_at, :now)',
            ConditionExpression: 'attribute_not_exists(attempt) OR attempt <= :attempt',
            ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
            ExpressionAttributeValues: {
              ':account': accountId,
              ':status': result.success ? 'succeeded' : 'failed',
              ':attempt': attempt,
              ':result': result,
              ':now': now().toISOString(),
            },
          }),
        ),
      );
    },

    async recordStep(runId, report) {
      const item = `step#${report.integration}${report.part ? `#${report.part}` : ''}`;
      await db.send(new PutCommand({ TableName, Item: { run_id: runId, item, ...report } }));
    },

    async steps(runId) {
      const res = await db.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'run_id = :run AND begins_with(#item, :step)',
          ExpressionAttributeNames: { '#item': 'item' },
          ExpressionAttributeValues: { ':run': runId, ':step': 'step#' },
          ConsistentRead: true,
        }),
      );
      return (res.Items ?? []).map(({ run_id: _r, item: _i, ...report }) => report as StepReport);
    },
  };
}

/** What a run came to, as an account's view shows it (lib/accounts/account-view.ts). */
export const runOutcomes = (runs: Pick<RunStore, 'get'>) => async (runId: string) => {
  const run = await runs.get(runId);
  if (!run) return undefined;
  return {
    runId,
    status: run.status,
    ...(run.result ? { integrations: run.result.integrations as Record<string, string> } : {}),
    ...(run.finished_at ? { finishedAt: run.finished_at } : {}),
  };
};
