import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, isConditionFailure, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Account, AccountDetails, AccountStore, Member, MemberStatus, NewMember, SlugRegistry } from './accounts.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'accounts' | 'account_members' | 'slugs'>; now?: () => Date };

/** What reading accounts and their member records takes: a function given only this may change neither. */
export type AccountReader = Pick<AccountStore, 'getAccount' | 'getMember' | 'membersOf'>;

export function dynamodbAccountReader({ db, tables }: Pick<Deps, 'db'> & { tables: Pick<Tables, 'accounts' | 'account_members'> }): AccountReader {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/accounts:GetItem';
  'iam:dynamodb:table/account_members:GetItem,Query';
  const TableName = tables.account_members;
  return {
    getAccount: async (id) =>
      (await db.send(new GetCommand({ TableName: tables.accounts, Key: { id }, ConsistentRead: true }))).Item as Account | undefined,
    getMember: async (accountId, email) =>
      (await db.send(new GetCommand({ TableName, Key: { account_id: accountId, email }, ConsistentRead: true }))).Item as Member | undefined,
    membersOf: (accountId) =>
      queryAll<Member>(db, { TableName, KeyConditionExpression: 'account_id = :id', ExpressionAttributeValues: { ':id': accountId }, ConsistentRead: true }),
  };
}

export function dynamodbAccounts({ db, tables, now = () => new Date() }: Deps): AccountStore {
  // What it sends besides the reader's, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/accounts:UpdateItem';
  'iam:dynamodb:table/account_members:PutItem,UpdateItem';
  const iso = () => now().toISOString();
  const reader = dynamodbAccountReader({ db, tables });
  const { getAccount, getMember, membersOf } = reader;
  const TableName = tables.account_members;

  return {
    ...reader,

    async claimMember(m: NewMember) {
      const at = iso();
      const member: Member = { ...m, status: 'provisioning', created_at: at, updated_at: at };
      try {
        await db.send(
          new PutCommand({ TableName, Item: member, ConditionExpression: 'attribute_not_exists(email)' }),
        );
        return { member, created: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return { member: (await getMember(m.account_id, m.email))!, created: false };
      }
    },

    async saveAccountDetails(id: string, details: AccountDetails) {
      const names: Record<string, string> = { '#status': 'status' };
      const values: Record<string, unknown> = { ':now': iso(), ':provisioning': 'provisioning' };
      const sets = ['created_at = if_not_exists(created_at, :now)', 'updated_at = :now', '#status = if_not_exists(#status, :provisioning)'];
      for (const [key, value] of Object.entries(details)) {
        if (value === undefined) continue;
        names[`#${key}`] = key;
        values[`:${key}`] = value;
        sets.push(`#${key} = :${key}`);
      }
      const res = await db.send(
        new UpdateCommand({
          TableName: tables.accounts,
          Key: { id },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return res.Attributes as Account;
    },

    async setPortalSlugOnce(accountId: string, slug: string) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tables.accounts,
            Key: { id: accountId },
            UpdateExpression: 'SET portal_slug = :slug, dashboard_slug = :slug, updated_at = :now',
            ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(portal_slug)',
            ExpressionAttributeValues: { ':slug': slug, ':now': iso() },
          }),
        );
        return slug;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const account = await getAccount(accountId);
        if (!account?.portal_slug) throw new Error(`Account ${accountId} does not exist`);
        return account.portal_slug;
      }
    },

    async setMemberStatusForAccount(accountId: string, status: MemberStatus) {
      for (const member of await membersOf(accountId)) {
        if (member.status === 'removed') continue;
        // A removal written since the read (a membership sync's) stands.
        await applied(
          db.send(
            new UpdateCommand({
              TableName,
              Key: { account_id: accountId, email: member.email },
              UpdateExpression: 'SET #status = :status, updated_at = :now',
              ConditionExpression: 'attribute_exists(email) AND #status <> :removed',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':status': status, ':now': iso(), ':removed': 'removed' },
            }),
          ),
        );
      }
    },

    async setMemberStorage(accountId, email, storage) {
      await db.send(
        new UpdateCommand({
          TableName,
          Key: { account_id: accountId, email },
          UpdateExpression:
            'SET storage_link = :link, storage_path = :path, storage_created_at = if_not_exists(storage_created_at, :at), updated_at = :now',
          ConditionExpression: 'attribute_exists(email)',
          ExpressionAttributeValues: { ':link': storage.link, ':path': storage.path, ':at': storage.createdAt, ':now': iso() },
        }),
      );
    },
  };
}

export function dynamodbSlugs({ db, tables, now = () => new Date() }: Deps): SlugRegistry {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/slugs:DeleteItem,PutItem';
  return {
    async reserve(slug, accountId) {
      return applied(
        db.send(
          new PutCommand({
            TableName: tables.slugs,
            Item: { slug, account_id: accountId, reserved_at: now().toISOString() },
            ConditionExpression: 'attribute_not_exists(slug) OR account_id = :id',
            ExpressionAttributeValues: { ':id': accountId },
          }),
        ),
      );
    },
    async release(slug, accountId) {
      await applied(
        db.send(
          new DeleteCommand({
            TableName: tables.slugs,
            Key: { slug },
            ConditionExpression: 'account_id = :id',
            ExpressionAttributeValues: { ':id': accountId },
          }),
        ),
      );
    },
  };
}
