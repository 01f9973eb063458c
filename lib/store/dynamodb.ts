import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { tablePrefix } from '../config.ts';
import { createDynamoDBClient } from './dynamodb-client.ts';

export type { DynamoDBDocumentClient };

/** Every table of the service; the physical name is `<TABLE_PREFIX><name>`. */
export type TableName =
  | 'accounts'
  | 'account_members'
  | 'memberships'
  | 'invitations'
  | 'integrations'
  | 'verification_tokens'
  | 'slugs'
  | 'webhook_secrets'
  | 'rate_limits'
  | 'pacing'
  | 'webhook_events'
  | 'provisioning'
  | 'onboarding_runs'
  | 'onboarding_batches'
  | 'follow_ups'
  | 'crawler_jobs'
  | 'crawler_events'
  | 'crawler_results'
  | 'crawler_stats';

export type Tables = Record<TableName, string>;

const names: TableName[] = [
  'accounts',
  'account_members',
  'memberships',
  'invitations',
  'integrations',
  'verification_tokens',
  'slugs',
  'webhook_secrets',
  'rate_limits',
  'pacing',
  'webhook_events',
  'provisioning',
  'onboarding_runs',
  'onboarding_batches',
  'follow_ups',
  'crawler_jobs',
  'crawler_events',
  'crawler_results',
  'crawler_stats',
];

export function tablesWithPrefix(prefix: string): Tables {
  return Object.fromEntries(names.map((n) => [n, `${prefix}${n}`])) as Tables;
}

export function createDocumentClient(client: DynamoDBClient = createDynamoDBClient()): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/**
 * Created once per Lambda instance and reused by warm invocations. Marked pure:
 * a bundle that imports this module but never uses the client (a lib/wiring module
 * imported for something else) drops it, instead of constructing it, and
 * initialising the SDK behind it, at every cold start.
 */
export const dynamodb = /* @__PURE__ */ createDynamoDBClient();
export const db = /* @__PURE__ */ createDocumentClient(dynamodb);
export const tables = /* @__PURE__ */ tablesWithPrefix(tablePrefix());

export const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/** Runs a write whose condition may fail: true when it was applied, false when the condition kept it out. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Every item a query matches, page after page. */
export async function queryAll<T>(db: DynamoDBDocumentClient, input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...((page.Items ?? []) as T[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
