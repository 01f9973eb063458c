// The payment webhook's, its step's and checkout's stores, created once per Lambda
// instance; Stripe itself comes from ../adapters.ts.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { dynamodbDeliveries } from '../deliveries/dynamodb-deliveries.ts';
import { metrics } from '../metrics.ts';
import { dynamodbFollowUps } from '../provisioning/follow-ups.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbBilling } from './dynamodb-billing.ts';

export { checkoutPayments, paymentEvents, paymentQueue } from '../adapters.ts';

export const accountStore = () => dynamodbAccounts({ db, tables });
export const billingStore = () => dynamodbBilling({ db, tables });
/** The delivery log every inbound webhook takes its events once through (webhook_events). */
export const deliveryLog = () => dynamodbDeliveries({ db, tables });
/** The operators' list (follow_ups), where a public purchase the webhook would not link waits. */
export const followUpList = () => dynamodbFollowUps({ db, tables, metrics });
