// Webhook settings in the integrations and webhook_secrets tables. There are
// no transactions (dynalite has none), so a rotation is ordered so that every
// interruption is safe: the new index entry first (useless until the row
// names its secret), then the row (from here the old secret no longer
// matches), then the old index entry is marked revoked.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamodbIntegrations, hashSecret, newWebhookSecret, type IntegrationRow } from '../accounts/integrations.ts';
import { Conflict, NotFound } from '../errors.ts';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import { SIGNING_KEY_NAMES, type SigningKeys, type WebhookIntegration, type WebhookIntegrations } from './webhook-integrations.ts';

type Row = IntegrationRow & { signing_keys?: SigningKeys };

const MAX_ROTATION_ATTEMPTS = 3;

export function dynamodbWebhookIntegrations(deps: {
  db: DynamoDBDocumentClient;
  tables: Pick<Tables, 'integrations' | 'webhook_secrets'>;
  now?: () => Date;
}): WebhookIntegrations {
  const { db, tables } = deps;
  const now = deps.now ?? (() => new Date());
  const rows = dynamodbIntegrations(deps);

  const read = async (accountId: string) =>
    (await db.send(new GetCommand({ TableName: tables.integrations, Key: { account_id: accountId }, ConsistentRead: true }))).Item as Row | undefined;
  const view = (row: Row): WebhookIntegration => ({
    accountId: row.account_id,
    secret: row.webhook_secret,
    signingKeys: { ...row.signing_keys },
    createdAt: row.created_at,
    ...(row.rotated_at ? { rotatedAt: row.rotated_at } : {}),
  });
  const get = async (accountId: string) => {
    const row = await read(accountId);
    return row && view(row);
  };

  return {
    get,

    async accountForSecretHash(secretHash) {
      const res = await db.send(new GetCommand({ TableName: tables.webhook_secrets, Key: { secret_hash: secretHash }, ConsistentRead: true }));
      return res.Item?.status === 'active' ? (res.Item.account_id as string) : undefined;
    },

    async ensure(accountId) {
      await rows.ensure(accountId);
      return (await get(accountId))!;
    },

    async rotate(accountId) {
      for (let attempt = 0; attempt < MAX_ROTATION_ATTEMPTS; attempt++) {
        const current = await read(accountId);
        if (!current) throw new NotFound('This account has no webhooks yet');
        const secret = newWebhookSecret();
        const hash = hashSecret(secret);
        const at = now().toISOString();
        await db.send(
          new PutCommand({
            TableName: tables.webhook_secrets,
            Item: { secret_hash: hash, account_id: accountId, status: 'active', created_at: at },
            ConditionExpression: 'attribute_not_exists(secret_hash)',
          }),
        );
        try {
          await db.send(
            new UpdateCommand({
              TableName: tables.integrations,
              Key: { account_id: accountId },
              UpdateExpression: 'SET webhook_secret = :secret, webhook_secret_hash = :hash, rotated_at = :at',
              // Only over the secret we read: two rotations at once must not both think they won.
              ConditionExpression: 'webhook_secret_hash = :previous',
              ExpressionAttributeValues: { ':secret': secret, ':hash': hash, ':at': at, ':previous': current.webhook_secret_hash },
            }),
          );
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          await revoke(hash, accountId, at);
          continue;
        }
        await revoke(current.webhook_secret_hash, accountId, at);
        return (await get(accountId))!;
      }
      throw new Conflict('The webhook secret is being rotated by someone else right now; try again', 'rotation_in_progress');
    },

    async setSigningKeys(accountId, changes) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':empty': {} };
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
      // A map must exist before a key inside it can be set: make it first, then change its keys.
      await db.send(
        new UpdateCommand({
          TableName: tables.integrations,
          Key: { account_id: accountId },
          UpdateExpression: 'SET signing_keys = if_not_exists(signing_keys, :empty)',
          ConditionExpression: 'attribute_exists(account_id)',
          ExpressionAttributeValues: { ':empty': {} },
        }),
      ).catch((error: unknown) => {
        throw isConditionFailure(error) ? new NotFound('This account has no webhooks yet') : error;
      });
      if (sets.length || removes.length) {
        delete values[':empty'];
        await db.send(
          new UpdateCommand({
            TableName: tables.integrations,
            Key: { account_id: accountId },
            UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
            ExpressionAttributeNames: names,
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
          }),
        );
      }
      return (await get(accountId))!;
    },
  };

  async function revoke(secretHash: string, accountId: string, at: string) {
    await applied(
      db.send(
        new UpdateCommand({
          TableName: tables.webhook_secrets,
          Key: { secret_hash: secretHash },
          UpdateExpression: 'SET #status = :revoked, revoked_at = :at',
          ConditionExpression: 'account_id = :account',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at, ':account': accountId },
        }),
      ),
    );
  }
}
