// What each step created at each vendor, per account: ids, paths, links, sent
// e-mails. A step consults it first, so a re-run or a redrive creates only
// what is missing, even where the vendor itself has no idempotency.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient, Tables } from '../store/dynamodb.ts';

export interface Ledger {
  get<T = Record<string, unknown>>(accountId: string, resource: string): Promise<T | undefined>;
  put(accountId: string, resource: string, value: Record<string, unknown>): Promise<void>;
}

/** Reads the ledger; on a miss, makes the thing and records it. */
export async function remembered<T extends Record<string, unknown>>(
  ledger: Ledger,
  accountId: string,
  resource: string,
  make: () => Promise<T>,
): Promise<T> {
  const known = await ledger.get<T>(accountId, resource);
  if (known) return known;
  const made = await make();
  await ledger.put(accountId, resource, made);
  return made;
}

export function dynamodbLedger(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'provisioning'>; now?: () => Date }): Ledger {
  const { db, tables } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    async get(accountId, resource) {
      const res = await db.send(
        new GetCommand({ TableName: tables.provisioning, Key: { account_id: accountId, resource }, ConsistentRead: true }),
      );
      return res.Item?.value;
    },
    async put(accountId, resource, value) {
      await db.send(
        new PutCommand({ TableName: tables.provisioning, Item: { account_id: accountId, resource, value, recorded_at: now().toISOString() } }),
      );
    },
  };
}
