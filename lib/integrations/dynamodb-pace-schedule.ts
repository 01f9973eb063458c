// The pacing schedules (pacing.ts) in the pacing table: one row per vendor
// credential, { key, next_at }, next_at being the first slot nobody has booked
// (epoch ms). Booking is one conditional write in the common case: an idle
// schedule (next_at in the past) starts at now; a busy one is extended by
// ADD, which DynamoDB applies atomically, so concurrent bookings get
// consecutive, disjoint slots in the order they reached the table.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applied, isConditionFailure, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { PaceSchedule } from './pacing.ts';

/** A booking that met the schedule turning idle (or busy) between its two writes tries again. */
const MAX_ROUNDS = 6;

export function dynamodbPaceSchedule({ db, tables }: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'pacing'> }): PaceSchedule {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/pacing:UpdateItem';
  const TableName = tables.pacing;
  return {
    async book(key, count, intervalMs, now) {
      const span = count * intervalMs;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const idle = await applied(
          db.send(
            new UpdateCommand({
              TableName,
              Key: { key },
              UpdateExpression: 'SET next_at = :end',
              ConditionExpression: 'attribute_not_exists(next_at) OR next_at <= :now',
              ExpressionAttributeValues: { ':end': now + span, ':now': now },
            }),
          ),
        );
        if (idle) return now;
        try {
          const res = await db.send(
            new UpdateCommand({
              TableName,
              Key: { key },
              UpdateExpression: 'ADD next_at :span',
              ConditionExpression: 'next_at > :now',
              ExpressionAttributeValues: { ':span': span, ':now': now },
              ReturnValues: 'UPDATED_NEW',
            }),
          );
          return Number(res.Attributes!.next_at) - span;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
      }
      throw new Error(`The pacing schedule ${key} kept changing under ${MAX_ROUNDS} bookings`);
    },

    async holdUntil(key, at) {
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { key },
            UpdateExpression: 'SET next_at = :at',
            ConditionExpression: 'attribute_not_exists(next_at) OR next_at < :at',
            ExpressionAttributeValues: { ':at': at },
          }),
        ),
      );
    },
  };
}
