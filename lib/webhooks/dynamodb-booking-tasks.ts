// The booking-task records in the provisioning ledger table, under
// "booking#<provider>#<booking id>" with the task id under `value.id`, as
// every ledger entry keeps what it made. The lease is two attributes beside it.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { BookingTaskRecord, BookingTasks } from './booking-tasks.ts';

/** Longer than one step can run (two minutes), so a lease outlives its holder only when the holder died. */
const LEASE_MS = 180_000;

export function dynamodbBookingTasks(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'provisioning'>; now?: () => Date }): BookingTasks {
  const { db } = deps;
  const TableName = deps.tables.provisioning;
  const now = deps.now ?? (() => new Date());
  const key = (accountId: string, bookingRef: string) => ({ account_id: accountId, resource: `booking#${bookingRef}` });

  return {
    async get(accountId, bookingRef) {
      const item = (await db.send(new GetCommand({ TableName, Key: key(accountId, bookingRef), ConsistentRead: true }))).Item;
      const v = item?.value as { id: string; url?: string; state: BookingTaskRecord['state']; event_at: string; start_time?: string } | undefined;
      return v && { taskId: v.id, ...(v.url ? { url: v.url } : {}), state: v.state, eventAt: v.event_at, ...(v.start_time ? { startTime: v.start_time } : {}) };
    },

    async claim(accountId, bookingRef, holder) {
      const at = now().getTime();
      return applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: key(accountId, bookingRef),
            UpdateExpression: 'SET lease_holder = :holder, lease_until = :until',
            ConditionExpression: 'attribute_not_exists(lease_holder) OR lease_holder = :holder OR lease_until < :now',
            ExpressionAttributeValues: { ':holder': holder, ':until': at + LEASE_MS, ':now': at },
          }),
        ),
      );
    },

    async save(accountId, bookingRef, record) {
      await db.send(
        new PutCommand({
          TableName,
          Item: {
            ...key(accountId, bookingRef),
            value: { id: record.taskId, url: record.url, state: record.state, event_at: record.eventAt, start_time: record.startTime },
            recorded_at: now().toISOString(),
          },
        }),
      );
    },

    async release(accountId, bookingRef, holder) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: key(accountId, bookingRef),
            UpdateExpression: 'REMOVE lease_holder, lease_until',
            ConditionExpression: 'lease_holder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
        ),
      );
    },
  };
}
