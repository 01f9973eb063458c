// The provisioning ledger in the provisioning table: one claim row per account and resource.
import { dynamodbClaims } from '../store/dynamodb-claims.ts';
import type { DynamoDBDocumentClient, Tables } from '../store/dynamodb.ts';
import { ledgerOf, LEDGER_CLAIMS, type EntryKey, type Ledger } from './ledger.ts';

export function dynamodbLedger(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'provisioning'>; now?: () => Date }): Ledger {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/provisioning:DeleteItem,GetItem,UpdateItem';
  return ledgerOf(
    dynamodbClaims({
      db: deps.db,
      tableName: deps.tables.provisioning,
      key: ({ accountId, resource }: EntryKey) => ({ account_id: accountId, resource }),
      policy: LEDGER_CLAIMS,
      now: deps.now,
    }),
  );
}
