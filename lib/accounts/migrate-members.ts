// From member records keyed by e-mail alone (the `members` table, until
// 2026-11) to records kept per account and address (`account_members`). Keyed
// by address, the first account to write a person's record kept it, and every
// other account's writes for that person were refused.
//
// Each old row is merged into its account's record: an attribute the record
// already has (the new code may have written it since the deploy) is kept, a
// missing one is filled from the old row, and a missing record is made. So the
// copy can run on a live table, be stopped anywhere, and be run again: a second
// run changes nothing.
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '../store/dynamodb.ts';

export type MemberCopyOutcome = 'created' | 'merged' | 'left-alone';

/** Merges one old row into the new table; a row without an account or an address is left. */
export async function copyMemberRecord(db: DynamoDBDocumentClient, table: string, row: Record<string, unknown>): Promise<MemberCopyOutcome> {
  const { account_id: accountId, email, ...rest } = row;
  if (typeof accountId !== 'string' || !accountId || typeof email !== 'string' || !email) return 'left-alone';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(rest).map(([key, value], i) => {
    names[`#a${i}`] = key;
    values[`:a${i}`] = value;
    return `#a${i} = if_not_exists(#a${i}, :a${i})`;
  });
  const res = await db.send(
    new UpdateCommand({
      TableName: table,
      Key: { account_id: accountId, email },
      // Without an expression, an update makes the item with its key alone.
      ...(sets.length ? { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values } : {}),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return res.Attributes ? 'merged' : 'created';
}

/** Copies every row of the e-mail-keyed table into the per-account table; answers what it did, by kind. */
export async function migrateMembers(
  db: DynamoDBDocumentClient,
  tables: { from: string; to: string },
  options: { pageSize?: number; onPage?: (counts: Record<MemberCopyOutcome, number>) => void } = {},
): Promise<Record<MemberCopyOutcome, number>> {
  const counts: Record<MemberCopyOutcome, number> = { created: 0, merged: 0, 'left-alone': 0 };
  let after: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: tables.from, ExclusiveStartKey: after, Limit: options.pageSize ?? 100, ConsistentRead: true }));
    for (const row of page.Items ?? []) counts[await copyMemberRecord(db, tables.to, row)]++;
    options.onPage?.(counts);
    after = page.LastEvaluatedKey;
  } while (after);
  return counts;
}
