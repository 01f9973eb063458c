// Memberships in the memberships table (account_id, user_id), with indexes by
// user (which accounts may this person act on) and by e-mail (provider syncs
// and public checkouts name a person by address only). The owner count lives
// on the account row as owner_count; see MembershipStore for why.
import { GetCommand, PutCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../permissions.ts';
import { applied, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Membership, MembershipStore, SeatChange } from './memberships.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'memberships' | 'accounts'>; now?: () => Date };

export const USER_INDEX = 'byUser';
export const EMAIL_INDEX = 'byEmail';

/** What reading memberships takes (the access guard's, the lists'): a function given only this can change none. */
export type MembershipReader = Pick<MembershipStore, 'get' | 'ofUser' | 'ofAccount' | 'ofEmail'>;

export function dynamodbMembershipReader({ db, tables }: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'memberships'> }): MembershipReader {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/memberships:GetItem,Query';
  'iam:dynamodb:table/memberships/index/byUser:Query';
  'iam:dynamodb:table/memberships/index/byEmail:Query';
  const TableName = tables.memberships;
  const query = (input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>) => queryAll<Membership>(db, { TableName, ...input });
  return {
    get: async (accountId, userId) =>
      (await db.send(new GetCommand({ TableName, Key: { account_id: accountId, user_id: userId }, ConsistentRead: true }))).Item as
        | Membership
        | undefined,
    ofUser: (userId) =>
      query({ IndexName: USER_INDEX, KeyConditionExpression: 'user_id = :u', ExpressionAttributeValues: { ':u': userId } }),
    ofAccount: (accountId) =>
      query({ KeyConditionExpression: 'account_id = :a', ExpressionAttributeValues: { ':a': accountId }, ConsistentRead: true }),
    ofEmail: (email) =>
      query({ IndexName: EMAIL_INDEX, KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': email } }),
  };
}

export function dynamodbMemberships({ db, tables, now = () => new Date() }: Deps): MembershipStore {
  // What it sends besides the reader's, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/memberships:PutItem,UpdateItem';
  'iam:dynamodb:table/accounts:UpdateItem';
  const TableName = tables.memberships;
  const iso = () => now().toISOString();
  const reader = dynamodbMembershipReader({ db, tables });
  const { get } = reader;

  /** One more owner seat; taken after the membership is written, so a crash in between undercounts (refusing a demotion), never overcounts. */
  const addOwnerSeat = (accountId: string) =>
    db.send(
      new UpdateCommand({
        TableName: tables.accounts,
        Key: { id: accountId },
        UpdateExpression: 'ADD owner_count :one',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );

  /** One owner seat less, unless it is the last one. */
  const releaseOwnerSeat = (accountId: string) =>
    applied(
      db.send(
        new UpdateCommand({
          TableName: tables.accounts,
          Key: { id: accountId },
          UpdateExpression: 'ADD owner_count :minusOne',
          ConditionExpression: 'owner_count > :one',
          ExpressionAttributeValues: { ':minusOne': -1, ':one': 1 },
        }),
      ),
    );

  /** Runs a membership write that takes an owner seat away: the seat first, given back if the write does not land. */
  async function withoutOwnerSeat(accountId: string, write: () => Promise<boolean>): Promise<SeatChange> {
    if (!(await releaseOwnerSeat(accountId))) return 'last-owner';
    if (await write()) return 'changed';
    await addOwnerSeat(accountId);
    return 'moved-meanwhile';
  }

  const changeActive = (accountId: string, userId: string, role: Role, set: string, values: Record<string, unknown>) =>
    applied(
      db.send(
        new UpdateCommand({
          TableName,
          Key: { account_id: accountId, user_id: userId },
          UpdateExpression: `SET ${set}, updated_at = :now`,
          ConditionExpression: '#status = :active AND #role = :role',
          ExpressionAttributeNames: { '#status': 'status', '#role': 'role' },
          ExpressionAttributeValues: { ':active': 'active', ':role': role, ':now': iso(), ...values },
        }),
      ),
    );

  return {
    ...reader,

    async join(m) {
      const at = iso();
      const membership: Membership = {
        account_id: m.accountId,
        user_id: m.userId,
        email: m.email,
        role: m.role,
        status: 'active',
        joined_via: m.via,
        ...(m.invitationId ? { invitation_id: m.invitationId } : {}),
        joined_at: at,
        updated_at: at,
      };
      const written = await applied(
        db.send(
          new PutCommand({
            TableName,
            Item: membership,
            ConditionExpression: 'attribute_not_exists(user_id) OR #status = :removed',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':removed': 'removed' },
          }),
        ),
      );
      if (!written) return { membership: (await get(m.accountId, m.userId))!, joined: false };
      if (m.role === 'owner') await addOwnerSeat(m.accountId);
      return { membership, joined: true };
    },

    async setRole(accountId, userId, from, to) {
      if (from === to) return (await get(accountId, userId))?.status === 'active' ? 'changed' : 'not-member';
      const write = () => changeActive(accountId, userId, from, '#role = :to', { ':to': to });
      if (from === 'owner') return withoutOwnerSeat(accountId, write);
      if (!(await write())) return (await get(accountId, userId))?.status === 'active' ? 'moved-meanwhile' : 'not-member';
      if (to === 'owner') await addOwnerSeat(accountId);
      return 'changed';
    },

    async remove(accountId, userId, role) {
      const write = () => changeActive(accountId, userId, role, '#status = :removed', { ':removed': 'removed' });
      if (role === 'owner') return withoutOwnerSeat(accountId, write);
      if (await write()) return 'changed';
      return (await get(accountId, userId))?.status === 'active' ? 'moved-meanwhile' : 'not-member';
    },
  };
}
