// The booking-task records in the provisioning ledger table, under
// "booking#<provider>#<booking id>", as claim rows like every ledger entry.
import { dynamodbClaims } from '../store/dynamodb-claims.ts';
import type { DynamoDBDocumentClient, Tables } from '../store/dynamodb.ts';
import { BOOKING_TASK_CLAIMS, bookingTasksOf, type BookingKey, type BookingTasks } from './booking-tasks.ts';

export function dynamodbBookingTasks(deps: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'provisioning'>; now?: () => Date }): BookingTasks {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/provisioning:GetItem,UpdateItem';
  return bookingTasksOf(
    dynamodbClaims({
      db: deps.db,
      tableName: deps.tables.provisioning,
      key: ({ accountId, bookingRef }: BookingKey) => ({ account_id: accountId, resource: `booking#${bookingRef}` }),
      policy: BOOKING_TASK_CLAIMS,
      now: deps.now,
    }),
  );
}
