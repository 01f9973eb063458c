// Invitations in the invitations table, by id, with indexes by account (its
// list) and by e-mail (what is waiting for a signed-in person). dynalite has
// no TTL: expiry is checked in the conditions here, and by isOpen.
//
// Beside them, one row per invited (account, address), keyed
// `address#<account>#<email>`, names the invitation open to it. Opening an
// invitation is first a conditional write of that row (free, lapsed, or
// naming an invitation no longer pending), so of any number of concurrent
// invitations of one address one opens, with no transaction (dynalite has
// none); accepting or revoking frees it; the account removing the person bars
// syncs from it. The row has no account_id or email attribute, so neither
// index lists it.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, isConditionFailure, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import { isOpen, type Invitation, type InvitationStore, type Opening } from './invitations.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'invitations'>; now?: () => Date };

export const ACCOUNT_INDEX = 'byAccount';
export const EMAIL_INDEX = 'byEmail';

interface AddressRow {
  id: string;
  kind: 'address';
  /** The invitation open to the address, until (epoch s) it lapses; opened_at (epoch ms) is when the row was taken for it. */
  open_id?: string;
  open_until?: number;
  opened_at?: number;
  /** When the account removed the person, or revoked their invitation: no sync invites them again. */
  barred_at?: string;
}

/** How long a taken address waits for its invitation to be written before another may take it (its writer died). */
const WRITE_LEASE_MS = 60_000;
/** A takeover that lost to another caller's looks again; the last loss answers 'pending'. */
const MAX_ATTEMPTS = 3;

const addressKey = (accountId: string, email: string) => ({ id: `address#${accountId}#${email}` });
const epochSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

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
    async get(id) {
      const item = (await db.send(new GetCommand({ TableName, Key: { id }, ConsistentRead: true }))).Item as Invitation | AddressRow | undefined;
      return item && !('kind' in item) ? item : undefined;
    },
    ofAccount: (accountId) => query(ACCOUNT_INDEX, 'account_id', accountId),
    toEmail: (email) => query(EMAIL_INDEX, 'email', email),
  };
}

export function dynamodbInvitations({ db, tables, now = () => new Date() }: Deps): InvitationStore {
  // What it sends besides the reader's, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/invitations:PutItem,UpdateItem';
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
  const read = async <T,>(id: string) => (await db.send(new GetCommand({ TableName, Key: { id }, ConsistentRead: true }))).Item as T | undefined;

  /** Takes the address for the invitation: when free or lapsed, or (`seen`) from the invitation that held it. */
  const take = (invitation: Invitation, at: Date, unlessBarred: boolean, seen?: string) =>
    applied(
      db.send(
        new UpdateCommand({
          TableName,
          Key: addressKey(invitation.account_id, invitation.email),
          UpdateExpression: 'SET #kind = :kind, open_id = :id, open_until = :until, opened_at = :at',
          ConditionExpression: [seen ? 'open_id = :seen' : '(attribute_not_exists(open_id) OR open_until <= :now)', ...(unlessBarred ? ['attribute_not_exists(barred_at)'] : [])].join(' AND '),
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: {
            ':kind': 'address',
            ':id': invitation.id,
            ':until': invitation.expires_at,
            ':at': at.getTime(),
            ...(seen ? { ':seen': seen } : { ':now': epochSeconds(at) }),
          },
        }),
      ),
    );

  /** Frees the address if it still names this invitation. */
  const free = (invitation: Pick<Invitation, 'id' | 'account_id' | 'email'>) =>
    applied(
      db.send(
        new UpdateCommand({
          TableName,
          Key: addressKey(invitation.account_id, invitation.email),
          UpdateExpression: 'REMOVE open_id, open_until, opened_at',
          ConditionExpression: 'open_id = :id',
          ExpressionAttributeValues: { ':id': invitation.id },
        }),
      ),
    );

  /** Bars syncs from the address; answers the row as it was. */
  const bar = async (accountId: string, email: string, at: Date, close: boolean) =>
    (
      await db.send(
        new UpdateCommand({
          TableName,
          Key: addressKey(accountId, email),
          UpdateExpression: `SET #kind = :kind, barred_at = :at${close ? ' REMOVE open_id, open_until, opened_at' : ''}`,
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':kind': 'address', ':at': at.toISOString() },
          ReturnValues: 'ALL_OLD',
        }),
      )
    ).Attributes as AddressRow | undefined;

  /** A status change of a pending invitation; the invitation as it is afterwards, or undefined when it was not pending. */
  const settle = async (id: string, set: string, condition: string, values: Record<string, unknown>): Promise<Invitation | undefined> => {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName,
          Key: { id },
          UpdateExpression: set,
          ConditionExpression: `attribute_exists(account_id) AND #status = :pending${condition}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending', ...values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Invitation;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  };
  const markRevoked = (id: string, by: string, at: Date) =>
    settle(id, 'SET #status = :revoked, revoked_by = :by, revoked_at = :at', '', { ':revoked': 'revoked', ':by': by, ':at': at.toISOString() });

  /** Takes the address, or answers why not. */
  async function takeAddress(invitation: Invitation, at: Date, unlessBarred: boolean): Promise<Opening> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await take(invitation, at, unlessBarred)) return 'opened';
      const row = await read<AddressRow>(addressKey(invitation.account_id, invitation.email).id);
      if (unlessBarred && row?.barred_at) return 'barred';
      // Freed or lapsed since: try again.
      if (!row?.open_id || (row.open_until ?? 0) <= epochSeconds(at)) continue;
      const holder = await read<Invitation>(row.open_id);
      // A holder accepted or revoked whose address was not freed (its writer stopped in between), or whose
      // invitation was never written, is taken over; one being written right now is left to finish.
      const stale = holder ? !isOpen(holder, at) : at.getTime() - (row.opened_at ?? 0) > WRITE_LEASE_MS;
      if (!stale) return 'pending';
      if (await take(invitation, at, unlessBarred, row.open_id)) return 'opened';
    }
    return 'pending';
  }

  return {
    async open(invitation, options = {}) {
      const at = now();
      const taken = await takeAddress(invitation, at, options.unlessBarred ?? false);
      if (taken !== 'opened') return taken;
      try {
        await db.send(new PutCommand({ TableName, Item: invitation, ConditionExpression: 'attribute_not_exists(id)' }));
      } catch (error) {
        await free(invitation).catch(() => undefined);
        throw error;
      }
      // A removal that closed the address while this was written found no invitation to revoke: it is revoked here.
      const after = await read<AddressRow>(addressKey(invitation.account_id, invitation.email).id);
      if (after?.open_id !== invitation.id && (await markRevoked(invitation.id, 'address-closed', now()))) return 'closed';
      return 'opened';
    },
    ...dynamodbInvitationReader({ db, tables }),
    async accept(id, userId, at) {
      const accepted = await settle(id, 'SET #status = :accepted, accepted_by = :user, accepted_at = :at', ' AND expires_at > :now', {
        ':accepted': 'accepted',
        ':user': userId,
        ':at': at.toISOString(),
        ':now': epochSeconds(at),
      });
      if (accepted) await free(accepted);
      return accepted !== undefined;
    },
    async revoke(id, by, at, options = {}) {
      const revoked = await markRevoked(id, by, at);
      if (!revoked) return false;
      await free(revoked);
      if (options.bar) await bar(revoked.account_id, revoked.email, at, false);
      return true;
    },
    async closeTo(accountId, email, by, at) {
      // Barred first: an invitation opened from here on is the account's own new decision, never a sync's.
      const before = await bar(accountId, email, at, true);
      const pending = (await query(EMAIL_INDEX, 'email', email)).filter((i) => i.account_id === accountId && i.status === 'pending').map((i) => i.id);
      const ids = new Set([...pending, ...(before?.open_id ? [before.open_id] : [])]);
      await Promise.all([...ids].map((id) => markRevoked(id, by, at)));
    },
    async markSent(id, at) {
      await db.send(
        new UpdateCommand({
          TableName,
          Key: { id },
          UpdateExpression: 'SET mail = :sent, mailed_at = :at',
          ConditionExpression: 'attribute_exists(account_id)',
          ExpressionAttributeValues: { ':sent': 'sent', ':at': at.toISOString() },
        }),
      );
    },
  };
}
