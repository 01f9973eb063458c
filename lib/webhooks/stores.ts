// The DynamoDB-backed ports of the webhooks, created once per Lambda instance.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { dynamodbDeliveries } from '../deliveries/dynamodb-deliveries.ts';
import { dynamodbLedger } from '../provisioning/dynamodb-ledger.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbBookingTasks } from './dynamodb-booking-tasks.ts';
import { dynamodbMembershipMembers } from './dynamodb-membership-members.ts';
import { dynamodbWebhookIntegrations } from './dynamodb-webhook-integrations.ts';

export const webhookStores = {
  integrations: dynamodbWebhookIntegrations({ db, tables }),
  deliveries: dynamodbDeliveries({ db, tables }),
  accounts: dynamodbAccounts({ db, tables }),
  ledger: dynamodbLedger({ db, tables }),
  members: dynamodbMembershipMembers({ db, tables }),
  bookingTasks: dynamodbBookingTasks({ db, tables }),
};
