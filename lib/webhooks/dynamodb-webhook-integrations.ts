// Webhook settings in the integrations and webhook_secrets tables. A delivery
// reads one row: the webhook_secrets entry its secret's SHA-256 names (whose it
// is, whether active, its signing keys); the integration row holds the secret
// to show its owner and which entry is current. Without transactions, a
// rotation first writes what it will do (next_secret) and then does it in steps
// anyone may finish (settle): revoke the old entry (snapshotting its keys),
// activate the new one with them, name it on the row. Keys change only on an
// active entry, so none set during a rotation is lost: it lands before the
// revocation, or is refused and tried again on the new entry.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamodbIntegrations, hashSecret, newWebhookSecret, type IntegrationRow } from '../accounts/integrations.ts';
import { Conflict, NotFound } from '../errors.ts';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import { SIGNING_KEY_NAMES, type SigningKeys, type WebhookIntegration, type WebhookIntegrations } from './webhook-integrations.ts';

type Row = IntegrationRow & { next_secret?: string; next_secret_hash?: string };
type Entry = { secret_hash: string; account_id: string; status: 'active' | 'pending' | 'revoked'; signing_keys?: SigningKeys };

const MAX_ATTEMPTS = 3;

const entryOf = async (db: DynamoDBDocumentClient, tables: Pick<Tables, 'webhook_secrets'>, secretHash: string) =>
  (await db.send(new GetCommand({ TableName: tables.webhook_secrets, Key: { secret_hash: secretHash }, ConsistentRead: true }))).Item as Entry | undefined;

/** The one read an inbound delivery makes: a function given only this can read no secret and change nothing. */
export function dynamodbInboundWebhooks({ db, tables }: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'webhook_secrets'> }): Pick<WebhookIntegrations, 'inboundFor'> {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/webhook_secrets:GetItem';
  return {
    async inboundFor(secretHash) {
      const entry = await entryOf(db, tables, secretHash);
      return entry?.status === 'active' ? { accountId: entry.account_id, signingKeys: { ...entry.signing_keys } } : undefined;
    },
  };
}

export function dynamodbWebhookIntegrations(deps: {
  db: DynamoDBDocumentClient;
  tables: Pick<Tables, 'integrations' | 'webhook_secrets'>;
  now?: () => Date;
}): WebhookIntegrations {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/integrations:GetItem,UpdateItem';
  'iam:dynamodb:table/webhook_secrets:GetItem,PutItem,UpdateItem';
  const { db, tables } = deps;
  const now = deps.now ?? (() => new Date());
  const rows = dynamodbIntegrations(deps);

  const readRow = async (accountId: string) =>
    (await db.send(new GetCommand({ TableName: tables.integrations, Key: { account_id: accountId }, ConsistentRead: true }))).Item as Row | undefined;
  const readEntry = (secretHash: string) => entryOf(db, tables, secretHash);

  /** The account's row with no rotation left half done. */
  async function settled(accountId: string): Promise<Row | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const row = await readRow(accountId);
      if (!row?.next_secret_hash) return row;
      await settle(row);
    }
    throw rotationInProgress();
  }

  /** Finishes the rotation the row has written down; each step is safe to repeat, by anyone. */
  async function settle(row: Row) {
    const at = now().toISOString();
    // Its keys as revoked: from here on nobody can change them (see setSigningKeys).
    const retired = await db
      .send(
        new UpdateCommand({
          TableName: tables.webhook_secrets,
          Key: { secret_hash: row.webhook_secret_hash },
          UpdateExpression: 'SET #status = :revoked, revoked_at = if_not_exists(revoked_at, :at)',
          ConditionExpression: 'account_id = :account',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at, ':account': row.account_id },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .then(
        (res) => res.Attributes as Entry,
        // No entry to revoke (the row's was never indexed): there are no keys to carry over.
        (error: unknown) => {
          if (isConditionFailure(error)) return undefined;
          throw error;
        },
      );
    await applied(
      db.send(
        new UpdateCommand({
          TableName: tables.webhook_secrets,
          Key: { secret_hash: row.next_secret_hash },
          UpdateExpression: 'SET #status = :active, signing_keys = :keys',
          ConditionExpression: 'account_id = :account AND #status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':pending': 'pending', ':keys': retired?.signing_keys ?? {}, ':account': row.account_id },
        }),
      ),
    );
    await applied(
      db.send(
        new UpdateCommand({
          TableName: tables.integrations,
          Key: { account_id: row.account_id },
          UpdateExpression: 'SET webhook_secret = :secret, webhook_secret_hash = :hash, rotated_at = :at REMOVE next_secret, next_secret_hash',
          ConditionExpression: 'next_secret_hash = :hash',
          ExpressionAttributeValues: { ':secret': row.next_secret, ':hash': row.next_secret_hash, ':at': at },
        }),
      ),
    );
  }

  const get = async (accountId: string): Promise<WebhookIntegration | undefined> => {
    const row = await settled(accountId);
    if (!row) return undefined;
    const entry = await readEntry(row.webhook_secret_hash);
    return {
      accountId: row.account_id,
      secret: row.webhook_secret,
      signingKeys: { ...entry?.signing_keys },
      createdAt: row.created_at,
      ...(row.rotated_at ? { rotatedAt: row.rotated_at } : {}),
    };
  };

  return {
    get,

    ...dynamodbInboundWebhooks({ db, tables }),

    async ensure(accountId) {
      await rows.ensure(accountId);
      return (await get(accountId))!;
    },

    async rotate(accountId) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await settled(accountId);
        if (!current) throw new NotFound('This account has no webhooks yet');
        const secret = newWebhookSecret();
        const hash = hashSecret(secret);
        // Pending: it opens nothing until the rotation has revoked the old secret (nor ever, if this rotation loses the race below).
        await db.send(
          new PutCommand({
            TableName: tables.webhook_secrets,
            Item: { secret_hash: hash, account_id: accountId, status: 'pending', created_at: now().toISOString() },
            ConditionExpression: 'attribute_not_exists(secret_hash)',
          }),
        );
        const planned = await applied(
          db.send(
            new UpdateCommand({
              TableName: tables.integrations,
              Key: { account_id: accountId },
              UpdateExpression: 'SET next_secret = :secret, next_secret_hash = :hash',
              // Only over the secret we read, and one rotation at a time: two rotations at once must not both think they won.
              ConditionExpression: 'webhook_secret_hash = :previous AND attribute_not_exists(next_secret_hash)',
              ExpressionAttributeValues: { ':secret': secret, ':hash': hash, ':previous': current.webhook_secret_hash },
            }),
          ),
        );
        if (!planned) continue;
        await settle({ ...current, next_secret: secret, next_secret_hash: hash });
        return (await get(accountId))!;
      }
      throw rotationInProgress();
    },

    async setSigningKeys(accountId, changes) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const sets: string[] = [];
      const removes: string[] = [];
      for (const key of SIGNING_KEY_NAMES) {
        const change = changes[key];
        if (change === undefined) continue;
        names[`#${key}`] = key;
        if (change === null) removes.push(`signing_keys.#${key}`);
        else {
          values[`:${key}`] = change;
          sets.push(`signing_keys.#${key} = :${key}`);
        }
      }
      const onActiveEntry = (secretHash: string, UpdateExpression: string, extra: { names?: Record<string, string>; values?: Record<string, unknown> } = {}) =>
        applied(
          db.send(
            new UpdateCommand({
              TableName: tables.webhook_secrets,
              Key: { secret_hash: secretHash },
              UpdateExpression,
              // A revoked entry's keys are the snapshot a rotation carried over: changing them would be lost.
              ConditionExpression: 'account_id = :account AND #status = :active',
              ExpressionAttributeNames: { '#status': 'status', ...extra.names },
              ExpressionAttributeValues: { ':active': 'active', ':account': accountId, ...extra.values },
            }),
          ),
        );
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const row = await settled(accountId);
        if (!row) throw new NotFound('This account has no webhooks yet');
        // A map must exist before a key inside it can be set: make it first, then change its keys.
        if (!(await onActiveEntry(row.webhook_secret_hash, 'SET signing_keys = if_not_exists(signing_keys, :empty)', { values: { ':empty': {} } }))) continue;
        const update = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim();
        if (update && !(await onActiveEntry(row.webhook_secret_hash, update, { names, values }))) continue;
        return (await get(accountId))!;
      }
      throw rotationInProgress();
    },
  };
}

const rotationInProgress = () => new Conflict('The webhook secret is being rotated by someone else right now; try again', 'rotation_in_progress');
