// The integration row: one per account, holding the account's webhook secret.
// The secret appears in the account's webhook URLs, so the owner can read it
// back; it is stored in the row (DynamoDB encrypts at rest; only this
// service's role may read it) and indexed by its SHA-256 in webhook_secrets,
// so an inbound webhook finds its account without the secret ever being a key.
// It is never logged.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createHash, randomBytes } from 'node:crypto';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';

export interface IntegrationRow {
  account_id: string;
  webhook_secret: string;
  webhook_secret_hash: string;
  created_at: string;
  rotated_at?: string;
}

export interface IntegrationStore {
  /** Creates the account's integration row with a fresh webhook secret, unless it has one. */
  ensure(accountId: string): Promise<{ created: boolean }>;
  get(accountId: string): Promise<IntegrationRow | undefined>;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const newWebhookSecret = () => randomBytes(32).toString('base64url');

export function dynamodbIntegrations(deps: {
  db: DynamoDBDocumentClient;
  tables: Pick<Tables, 'integrations' | 'webhook_secrets'>;
  now?: () => Date;
}): IntegrationStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/integrations:GetItem,PutItem';
  'iam:dynamodb:table/webhook_secrets:PutItem';
  const { db, tables } = deps;
  const now = deps.now ?? (() => new Date());
  const get = async (accountId: string) =>
    (await db.send(new GetCommand({ TableName: tables.integrations, Key: { account_id: accountId }, ConsistentRead: true })))
      .Item as IntegrationRow | undefined;

  return {
    get,
    async ensure(accountId) {
      let row = await get(accountId);
      let created = false;
      if (!row) {
        const secret = newWebhookSecret();
        const candidate: IntegrationRow = {
          account_id: accountId,
          webhook_secret: secret,
          webhook_secret_hash: hashSecret(secret),
          created_at: now().toISOString(),
        };
        try {
          await db.send(
            new PutCommand({ TableName: tables.integrations, Item: candidate, ConditionExpression: 'attribute_not_exists(account_id)' }),
          );
          row = candidate;
          created = true;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          row = (await get(accountId))!;
        }
      }
      // The row is written first, the index second: a crash in between is mended by the next call.
      await applied(
        db.send(
          new PutCommand({
            TableName: tables.webhook_secrets,
            Item: { secret_hash: row.webhook_secret_hash, account_id: accountId, status: 'active', created_at: row.created_at },
            ConditionExpression: 'attribute_not_exists(secret_hash)',
          }),
        ),
      );
      return { created };
    },
  };
}
