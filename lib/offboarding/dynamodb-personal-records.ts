// Every record of ours that holds an account's personal data, table by table:
// the inventory an erasure works through (docs/operations.md, Erasure). A
// table that holds names, addresses or what people wrote, and is not here, is
// a table an erasure misses: the erasure test scans every table for them.
// Not here: the accounts row (lifecycle.ts strips it, keeping the audit
// record), rate_limits (its keys are digests: lib/rate-limit), webhook_secrets
// and pacing (no personal data), webhook_events (event ids and outcomes).
import { DeleteCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Account } from '../accounts/accounts.ts';
import { isConditionFailure, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { People, PersonalRecords } from './erase.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Tables };
type Item = Record<string, unknown>;

export function dynamodbPersonalRecords({ db, tables }: Deps): PersonalRecords {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/account_members:DeleteItem,Query';
  'iam:dynamodb:table/memberships:DeleteItem,Query';
  'iam:dynamodb:table/memberships/index/byUser:Query';
  'iam:dynamodb:table/invitations:DeleteItem';
  'iam:dynamodb:table/invitations/index/byAccount:Query';
  'iam:dynamodb:table/integrations:DeleteItem';
  'iam:dynamodb:table/verification_tokens:DeleteItem,Scan';
  'iam:dynamodb:table/provisioning:DeleteItem,Query';
  'iam:dynamodb:table/onboarding_runs:DeleteItem,Query';
  'iam:dynamodb:table/onboarding_runs/index/byAccount:Query';
  'iam:dynamodb:table/onboarding_batches:DeleteItem,Scan';
  'iam:dynamodb:table/follow_ups:DeleteItem,Query';
  'iam:dynamodb:table/crawler_jobs:DeleteItem';
  'iam:dynamodb:table/crawler_jobs/index/byAccount:Query';
  'iam:dynamodb:table/crawler_results:DeleteItem,Query';
  'iam:dynamodb:table/crawler_events:DeleteItem,Query';
  'iam:dynamodb:table/crawler_stats:DeleteItem,Query';
  'iam:dynamodb:table/slugs:DeleteItem';

  const byAccount = (TableName: string, accountId: string, extra: Partial<QueryCommandInput> = {}) =>
    queryAll<Item>(db, { TableName, KeyConditionExpression: 'account_id = :id', ExpressionAttributeValues: { ':id': accountId }, ...extra });
  const scan = async (input: ScanCommandInput): Promise<Item[]> => {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await db.send(new ScanCommand({ ...input, ExclusiveStartKey: start }));
      items.push(...((page.Items ?? []) as Item[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  /** Deletes each item by the key attributes named; answers how many. */
  const remove = async (TableName: string, items: Item[], keys: string[]) => {
    for (const item of items) await db.send(new DeleteCommand({ TableName, Key: Object.fromEntries(keys.map((k) => [k, item[k]])) }));
    return items.length;
  };

  return {
    async peopleOf(accountId) {
      const [members, memberships, invitations] = await Promise.all([
        byAccount(tables.account_members, accountId, { ConsistentRead: true }),
        byAccount(tables.memberships, accountId, { ConsistentRead: true }),
        byAccount(tables.invitations, accountId, { IndexName: 'byAccount' }),
      ]);
      const emails = [...members, ...memberships, ...invitations].map((i) => i.email).filter((e): e is string => typeof e === 'string');
      const names = members.map((m) => m.name).filter((n): n is string => typeof n === 'string' && n.length > 0);
      const userIds = memberships.map((m) => m.user_id as string);
      return { emails: [...new Set(emails)], names: [...new Set(names)], userIds: [...new Set(userIds)] };
    },

    async bookingTaskIds(accountId) {
      const rows = await byAccount(tables.provisioning, accountId, { ConsistentRead: true });
      return rows.filter((r) => String(r.resource).startsWith('booking#')).map((r) => (r.value as { id?: string } | undefined)?.id).filter((id): id is string => Boolean(id));
    },

    async activeMembershipsElsewhere(userId, accountId) {
      const rows = await queryAll<Item>(db, {
        TableName: tables.memberships,
        IndexName: 'byUser',
        KeyConditionExpression: 'user_id = :user',
        ExpressionAttributeValues: { ':user': userId },
      });
      return rows.filter((r) => r.account_id !== accountId && r.status === 'active').length;
    },

    async eraseRecords(account: Account, people: People) {
      const id = account.id;
      const counts: Record<string, number> = {};
      counts.account_members = await remove(tables.account_members, await byAccount(tables.account_members, id, { ConsistentRead: true }), ['account_id', 'email']);
      counts.memberships = await remove(tables.memberships, await byAccount(tables.memberships, id, { ConsistentRead: true }), ['account_id', 'user_id']);
      const invitations = await byAccount(tables.invitations, id, { IndexName: 'byAccount' });
      // Beside each invitation, the row that holds its address open (keyed by the address).
      const addressRows = [...new Set([...invitations.map((i) => i.email as string), ...people.emails])].map((email) => ({ id: `address#${id}#${email}` }));
      counts.invitations = await remove(tables.invitations, [...invitations, ...addressRows], ['id']);
      counts.integrations = await remove(tables.integrations, [{ account_id: id }], ['account_id']);
      const users = new Set(people.userIds);
      const emails = new Set(people.emails);
      const tokens = await scan({ TableName: tables.verification_tokens });
      counts.verification_tokens = await remove(
        tables.verification_tokens,
        tokens.filter((t) => emails.has(t.email as string) || users.has(t.user_id as string)),
        ['token_hash'],
      );
      counts.provisioning = await remove(tables.provisioning, await byAccount(tables.provisioning, id, { ConsistentRead: true }), ['account_id', 'resource']);
      const runs = await byAccount(tables.onboarding_runs, id, { IndexName: 'byAccount' });
      let runItems = 0;
      for (const run of runs) {
        const items = await queryAll<Item>(db, { TableName: tables.onboarding_runs, KeyConditionExpression: 'run_id = :run', ExpressionAttributeValues: { ':run': run.run_id }, ConsistentRead: true });
        runItems += await remove(tables.onboarding_runs, items, ['run_id', 'item']);
      }
      counts.onboarding_runs = runItems;
      const batchRows = await scan({ TableName: tables.onboarding_batches, FilterExpression: 'account_id = :id', ExpressionAttributeValues: { ':id': id } });
      counts.onboarding_batches = await remove(tables.onboarding_batches, batchRows, ['batch_id', 'item']);
      counts.follow_ups = await remove(tables.follow_ups, await byAccount(tables.follow_ups, id, { ConsistentRead: true }), ['account_id', 'integration']);
      const jobs = await byAccount(tables.crawler_jobs, id, { IndexName: 'byAccount' });
      let results = 0;
      for (const job of jobs) {
        const items = await queryAll<Item>(db, { TableName: tables.crawler_results, KeyConditionExpression: 'job_id = :job', ExpressionAttributeValues: { ':job': job.job_id } });
        results += await remove(tables.crawler_results, items, ['job_id', 'item']);
      }
      counts.crawler_jobs = await remove(tables.crawler_jobs, jobs, ['job_id']);
      counts.crawler_results = results;
      counts.crawler_events = await remove(tables.crawler_events, await byAccount(tables.crawler_events, id), ['account_id', 'event_id']);
      counts.crawler_stats = await remove(tables.crawler_stats, await byAccount(tables.crawler_stats, id), ['account_id', 'item']);
      counts.slugs = account.portal_slug ? await removeSlug(account.portal_slug, id) : 0;
      return counts;
    },
  };

  /** The portal slug, given back (it is made from the company's name), if the account still holds it. */
  async function removeSlug(slug: string, accountId: string): Promise<number> {
    try {
      await db.send(new DeleteCommand({ TableName: tables.slugs, Key: { slug }, ConditionExpression: 'account_id = :id', ExpressionAttributeValues: { ':id': accountId } }));
      return 1;
    } catch (error) {
      if (isConditionFailure(error)) return 0;
      throw error;
    }
  }
}
