// Invitations in the invitations table, by id, with indexes by account (its
// list) and by e-mail (what is waiting for a signed-in person). dynalite has
// no TTL: expiry is checked in the conditions here, and by isOpen.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Invitation, InvitationStore } from './invitations.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'invitations'> };

export const ACCOUNT_INDEX = 'byAccount';
export const EMAIL_INDEX = 'byEmail';

/** What reading invitations takes: a function given only this can issue, accept or revoke none. */
export type InvitationReader = Pick<InvitationStore, 'get' | 'ofAccount' | 'toEmail'>;

export function dynamodbInvitationReader({ db, tables }: Deps): InvitationReader {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/invitations:GetItem';
  'iam:dynamodb:table/invitations/index/byAccount:Query';
  'iam:dynamodb:table/invitations/index/byEmail:Query';
  const TableName = tables.invitations;
  const query = (IndexName: string, key: string, value: string) =>
    queryAll<Invitation>(db, {
      TableName,
      IndexName,
      KeyConditionExpression: '#k = :v',
      ExpressionAttributeNames: { '#k': key },
      ExpressionAttributeValues: { ':v': value },
      ScanIndexForward: false,
    });
  return {
    get: async (id) => (await db.send(new GetCommand({ TableName, Key: { id }, ConsistentRead: true }))).Item as Invitation | undefined,
    ofAccount: (accountId) => query(ACCOUNT_INDEX, 'account_id', accountId),
    toEmail: (email) => query(EMAIL_INDEX, 'email', email),
  };
}

export function dynamodbInvitations({ db, tables }: Deps): InvitationStore {
  // What it sends besides the reader's, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/invitations:PutItem,UpdateItem';
  const TableName = tables.invitations;

  return {
    ...dynamodbInvitationReader({ db, tables }),
    async create(invitation) {
      await db.send(new PutCommand({ TableName, Item: invitation, ConditionExpression: 'attribute_not_exists(id)' }));
    },
    accept: (id, userId, now) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { id },
            UpdateExpression: 'SET #status = :accepted, accepted_by = :user, accepted_at = :at',
            ConditionExpression: '#status = :pending AND expires_at > :now',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':accepted': 'accepted',
              ':pending': 'pending',
              ':user': userId,
              ':at': now.toISOString(),
              ':now': Math.floor(now.getTime() / 1000),
            },
          }),
        ),
      ),
    revoke: (id, by, now) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { id },
            UpdateExpression: 'SET #status = :revoked, revoked_by = :by, revoked_at = :at',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':revoked': 'revoked', ':pending': 'pending', ':by': by, ':at': now.toISOString() },
          }),
        ),
      ),
  };
}
