import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { RunResult, StepProgress, StepReport } from './outcomes.ts';

export interface RunRecord {
  run_id: string;
  account_id: string;
  status: 'running' | 'succeeded' | 'failed';
  /** The workflow (state machine) the run belongs to, when not onboarding-v2's. */
  workflow?: string;
  /** The execution attempt (its redrive count) that wrote the result. */
  attempt: number;
  result?: RunResult;
  started_at: string;
  finished_at?: string;
  /** Each step's latest report, in short (what the run view shows while it runs), by `<integration>[#<part>]`. */
  progress?: Record<string, StepProgress>;
}

export interface RunStore {
  /** Notes that a run exists for the account (once; later calls change nothing). True when this call noted it. */
  begin(runId: string, accountId: string, workflow?: string): Promise<boolean>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** The runs of these ids that exist, in no particular order. */
  getMany(runIds: string[]): Promise<RunRecord[]>;
  /** Stores a result unless a later attempt already stored one. */
  saveResult(runId: string, accountId: string, attempt: number, result: RunResult): Promise<void>;
  recordStep(runId: string, report: StepReport): Promise<void>;
  steps(runId: string): Promise<StepReport[]>;
}

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'onboarding_runs'>; now?: () => Date };

/** The run item's attributes that hold its steps' progress: progress#<integration>[#<part>]. */
const PROGRESS = 'progress#';

function recordOf(item: Record<string, unknown>): RunRecord {
  const progress = Object.fromEntries(Object.entries(item).filter(([name]) => name.startsWith(PROGRESS)).map(([name, value]) => [name.slice(PROGRESS.length), value]));
  const rest = Object.fromEntries(Object.entries(item).filter(([name]) => !name.startsWith(PROGRESS)));
  return { ...(rest as unknown as RunRecord), ...(Object.keys(progress).length ? { progress: progress as RunRecord['progress'] } : {}) };
}

export function dynamodbRuns({ db, tables, now = () => new Date() }: Deps): RunStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/onboarding_runs:BatchGetItem,GetItem,PutItem,Query,UpdateItem';
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
      return res.Item && recordOf(res.Item);
    },

    async getMany(runIds) {
      const found: RunRecord[] = [];
      for (let i = 0; i < runIds.length; i += 100) {
        let keys: Record<string, unknown>[] | undefined = runIds.slice(i, i + 100).map((run_id) => ({ run_id, item: 'run' }));
        // What DynamoDB leaves unprocessed is asked again (a busy table answers part of a batch).
        for (let round = 0; keys?.length && round < 8; round++) {
          const res: BatchGetCommandOutput = await db.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: keys, ConsistentRead: true } } }));
          found.push(...(res.Responses?.[TableName] ?? []).map(recordOf));
          keys = res.UnprocessedKeys?.[TableName]?.Keys;
        }
        if (keys?.length) throw new Error(`${keys.length} runs could not be read`);
      }
      return found;
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
      const which = `${report.integration}${report.part ? `#${report.part}` : ''}`;
      await db.send(new PutCommand({ TableName, Item: { run_id: runId, item: `step#${which}`, ...report } }));
      // And in short on the run itself, so a run's (or a batch's) view reads one item per run.
      const { vendor, until } = report.details as { vendor?: string; until?: string };
      await db.send(
        new UpdateCommand({
          TableName,
          Key: { run_id: runId, item: 'run' },
          UpdateExpression: 'SET #progress = :report',
          ExpressionAttributeNames: { '#progress': `${PROGRESS}${which}` },
          ExpressionAttributeValues: {
            ':report': { integration: report.integration, part: report.part, outcome: report.outcome, at: report.at, ...(report.outcome === 'waiting' ? { vendor, until } : {}) },
          },
        }),
      );
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
