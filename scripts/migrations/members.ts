// From member records keyed by e-mail alone (the `members` table, until
// 2026-11) to records kept per account and address (`account_members`). Keyed
// by address, the first account to write a person's record kept it, and every
// other account's writes for that person were refused.
//
// Each old row becomes its account's record. Where the new code already wrote
// one (between the deploy and the copy), the two are merged as one person's
// record: an owner stays an owner, the earlier creation time stands, the
// membership state is merged by its events' times (mergeMembershipRecords),
// and for everything else the newer record's value stands and the old row
// fills what it lacks. Every write is conditional on the record as read, so
// the copy can run on live tables, be stopped anywhere, and be run again.
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { normaliseEmail } from '../../lib/accounts/accounts.ts';
import { stableJson } from '../../lib/stable-json.ts';
import { isConditionFailure, type DynamoDBDocumentClient } from '../../lib/store/dynamodb.ts';

/**
 * How two membership states of one person become one: the membership sync's
 * rule (lib/webhooks/membership-state.ts mergeMembershipRecords), passed in by
 * the caller.
 */
export type MergeMembership = (old: never, current: never) => unknown;

export type MemberCopyOutcome = 'created' | 'merged' | 'unchanged' | 'left-alone';

type Row = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const earlier = (a: unknown, b: unknown) => [text(a), text(b)].filter((v) => v !== undefined).sort()[0];

/**
 * The old row as a record of the new table: its address normalised as the
 * code looks it up, and a creation time (the byEmail index needs one). Rows
 * without an account or an address are left.
 */
export function recordFromOldRow(row: Row, at: string): Row | undefined {
  const accountId = text(row.account_id);
  const email = text(row.email) && normaliseEmail(row.email as string);
  if (!accountId || !email) return undefined;
  return { ...row, account_id: accountId, email, role: row.role === 'owner' ? 'owner' : 'member', created_at: text(row.created_at) ?? text(row.updated_at) ?? at };
}

/** One person's record from the copied old row and the record the new code wrote since. */
export function mergeMemberRecords(old: Row, current: Row, mergeMembership: MergeMembership): Row {
  const next: Row = { ...old, ...current };
  if (old.role === 'owner') next.role = 'owner';
  next.created_at = earlier(old.created_at, current.created_at);
  const storageCreated = earlier(old.storage_created_at, current.storage_created_at);
  if (storageCreated) next.storage_created_at = storageCreated;
  if (old.membership && current.membership) {
    next.membership = mergeMembership(old.membership as never, current.membership as never);
  }
  if (stableJson(next.membership) !== stableJson(current.membership)) {
    // A sync that read the record before this write must read it again.
    next.membership_version = Math.max(Number(current.membership_version ?? 0), Number(old.membership_version ?? 0)) + 1;
  }
  return next;
}

/** Copies one old row into the new table, merging with what is there. */
export async function copyMemberRecord(
  db: DynamoDBDocumentClient,
  table: string,
  row: Row,
  mergeMembership: MergeMembership,
  now = () => new Date(),
): Promise<MemberCopyOutcome> {
  const old = recordFromOldRow(row, now().toISOString());
  if (!old) return 'left-alone';
  const Key = { account_id: old.account_id, email: old.email };
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = (await db.send(new GetCommand({ TableName: table, Key, ConsistentRead: true }))).Item;
    let next = current ? mergeMemberRecords(old, current, mergeMembership) : old;
    if (current && stableJson(next) === stableJson(current)) return 'unchanged';
    if (current) next = { ...next, updated_at: now().toISOString() };
    try {
      await db.send(
        new PutCommand({
          TableName: table,
          Item: next,
          ...(!current
            ? { ConditionExpression: 'attribute_not_exists(email)' }
            : current.updated_at === undefined
              ? { ConditionExpression: 'attribute_exists(email) AND attribute_not_exists(updated_at)' }
              : { ConditionExpression: 'updated_at = :seen', ExpressionAttributeValues: { ':seen': current.updated_at } }),
        }),
      );
      return current ? 'merged' : 'created';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`The record of ${old.email} in ${old.account_id} kept changing while it was copied; run the copy again`);
}

/**
 * Copies every row of the e-mail-keyed table into the per-account table;
 * answers what it did, by kind. A row that cannot be written is counted as
 * `failed` and reported through onFailure, and the copy goes on.
 */
export async function migrateMembers(
  db: DynamoDBDocumentClient,
  tables: { from: string; to: string },
  mergeMembership: MergeMembership,
  options: { pageSize?: number; onPage?: (counts: Record<MemberCopyOutcome | 'failed', number>) => void; onFailure?: (row: Row, error: unknown) => void } = {},
): Promise<Record<MemberCopyOutcome | 'failed', number>> {
  const counts: Record<MemberCopyOutcome | 'failed', number> = { created: 0, merged: 0, unchanged: 0, 'left-alone': 0, failed: 0 };
  let after: Row | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: tables.from, ExclusiveStartKey: after, Limit: options.pageSize ?? 100, ConsistentRead: true }));
    for (const row of page.Items ?? []) {
      try {
        counts[await copyMemberRecord(db, tables.to, row, mergeMembership)]++;
      } catch (error) {
        counts.failed++;
        options.onFailure?.(row, error);
      }
    }
    options.onPage?.(counts);
    after = page.LastEvaluatedKey;
  } while (after);
  return counts;
}
