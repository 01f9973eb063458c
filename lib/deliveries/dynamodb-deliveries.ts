// The delivery log in the webhook_events table: one claim row per event key.
import { dynamodbClaims } from '../store/dynamodb-claims.ts';
import type { DynamoDBDocumentClient, Tables } from '../store/dynamodb.ts';
import { DELIVERY_CLAIMS, type DeliveryLog } from './deliveries.ts';

export function dynamodbDeliveries(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'webhook_events'>; now?: () => Date }): DeliveryLog {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/webhook_events:DeleteItem,GetItem,UpdateItem';
  return dynamodbClaims({ db: deps.db, tableName: deps.tables.webhook_events, key: (eventKey: string) => ({ event_key: eventKey }), policy: DELIVERY_CLAIMS, now: deps.now });
}
