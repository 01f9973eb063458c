import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Claim, WebhookEventLog } from './webhook-events.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'webhook_events'>; now?: () => Date };

/** Stripe retries a delivery for three days; the row outlives that comfortably before TTL clean-up. */
const KEEP_DAYS = 30;

export function dynamodbWebhookEvents({ db, tables, now = () => new Date() }: Deps): WebhookEventLog {
  const key = (provider: string, eventId: string) => ({ event_key: `${provider}#${eventId}` });
  return {
    async claim(provider, eventId, eventType): Promise<Claim> {
      const at = now();
      try {
        await db.send(
          new PutCommand({
            TableName: tables.webhook_events,
            Item: {
              ...key(provider, eventId),
              provider,
              event_id: eventId,
              event_type: eventType,
              state: 'claimed',
              received_at: at.toISOString(),
              expires_at: Math.floor(at.getTime() / 1000) + KEEP_DAYS * 86_400,
            },
            ConditionExpression: 'attribute_not_exists(event_key)',
          }),
        );
        return 'first';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      // A row past its expires_at that TTL has not removed yet still counts: seeing an event again is never a reason to apply it again.
      const seen = await db.send(new GetCommand({ TableName: tables.webhook_events, Key: key(provider, eventId), ConsistentRead: true }));
      return seen.Item?.state === 'finished' ? 'finished' : 'unfinished';
    },

    async finish(provider, eventId, result) {
      await db.send(
        new UpdateCommand({
          TableName: tables.webhook_events,
          Key: key(provider, eventId),
          UpdateExpression: 'SET #state = :finished, outcome = if_not_exists(outcome, :outcome), finished_at = if_not_exists(finished_at, :at)' +
            (result.accountId ? ', account_id = if_not_exists(account_id, :account)' : ''),
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':finished': 'finished',
            ':outcome': result.outcome,
            ':at': now().toISOString(),
            ...(result.accountId ? { ':account': result.accountId } : {}),
          },
        }),
      );
    },
  };
}
