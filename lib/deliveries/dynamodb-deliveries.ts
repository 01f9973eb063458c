// The delivery log in the webhook_events table: one row per event key,
// claimed by a conditional put. dynalite has no TTL, and DynamoDB's TTL is
// only clean-up, so expiry and leases are checked in the conditions here.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Claim, DeliveryLog, Seen } from './deliveries.ts';

interface Settings {
  /** How long a claim holds before a retry may take over; longer than a webhook Lambda can run. */
  leaseMs: number;
  /** How long a finished event is remembered; longer than any provider retries. */
  retentionDays: number;
}

export const DELIVERY_DEFAULTS: Settings = { leaseMs: 60_000, retentionDays: 30 };

export function dynamodbDeliveries(deps: {
  db: DynamoDBDocumentClient;
  tables: Pick<Tables, 'webhook_events'>;
  now?: () => Date;
  settings?: Settings;
}): DeliveryLog {
  const { db } = deps;
  const TableName = deps.tables.webhook_events;
  const now = deps.now ?? (() => new Date());
  const { leaseMs, retentionDays } = deps.settings ?? DELIVERY_DEFAULTS;

  return {
    async claim(eventKey, about): Promise<Claim> {
      for (;;) {
        const at = now();
        const token = randomUUID();
        try {
          await db.send(
            new PutCommand({
              TableName,
              Item: {
                event_key: eventKey,
                status: 'processing',
                claim_token: token,
                lease_until: at.getTime() + leaseMs,
                expires_at: Math.floor(at.getTime() / 1000) + retentionDays * 86_400,
                ...(about.accountId ? { account_id: about.accountId } : {}),
                source: about.source,
                received_at: at.toISOString(),
              },
              ConditionExpression: 'attribute_not_exists(event_key) OR expires_at < :nowSeconds OR (#status = :processing AND lease_until < :nowMs)',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':nowSeconds': Math.floor(at.getTime() / 1000), ':nowMs': at.getTime(), ':processing': 'processing' },
            }),
          );
          return { state: 'claimed', token };
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
        const held = (await db.send(new GetCommand({ TableName, Key: { event_key: eventKey }, ConsistentRead: true }))).Item;
        // Given back between our put and our read: try again.
        if (!held) continue;
        return held.status === 'done' ? { state: 'done', outcome: held.outcome as string | undefined } : { state: 'in-progress' };
      }
    },

    async peek(eventKey): Promise<Seen> {
      const held = (await db.send(new GetCommand({ TableName, Key: { event_key: eventKey }, ConsistentRead: true }))).Item;
      const at = now();
      if (!held || Number(held.expires_at) < Math.floor(at.getTime() / 1000)) return { state: 'free' };
      if (held.status === 'done') return { state: 'done', outcome: held.outcome as string | undefined };
      return Number(held.lease_until) < at.getTime() ? { state: 'free' } : { state: 'in-progress' };
    },

    async complete(eventKey, token, outcome, accountId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName,
            Key: { event_key: eventKey },
            UpdateExpression: `SET #status = :done, outcome = :outcome, completed_at = :at${accountId ? ', account_id = :account' : ''} REMOVE lease_until`,
            ConditionExpression: 'claim_token = :token',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':done': 'done',
              ':outcome': outcome,
              ':at': now().toISOString(),
              ':token': token,
              ...(accountId ? { ':account': accountId } : {}),
            },
          }),
        );
      } catch (error) {
        // Our lease ran out and a retry took over: it will record the outcome itself.
        if (!isConditionFailure(error)) throw error;
      }
    },

    async release(eventKey, token) {
      await applied(
        db.send(
          new DeleteCommand({
            TableName,
            Key: { event_key: eventKey },
            ConditionExpression: 'claim_token = :token AND #status = :processing',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':token': token, ':processing': 'processing' },
          }),
        ),
      );
    },
  };
}
