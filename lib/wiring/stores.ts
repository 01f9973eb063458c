// Every DynamoDB-backed store of the service, each built once per Lambda
// instance on its first ask. One getter per store, so a bundle holds only the
// stores its function asks for, and with them what the function's IAM role
// grants (infra/roles-per-function.mjs): a function that only reads a store
// asks for its reader, and may then change nothing in it.
import { dynamodbAccountReader, dynamodbAccounts, dynamodbSlugs } from '../accounts/dynamodb-accounts.ts';
import { dynamodbInvitationReader, dynamodbInvitations } from '../accounts/dynamodb-invitations.ts';
import { dynamodbLifecycle } from '../accounts/dynamodb-lifecycle.ts';
import { dynamodbMembershipReader, dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { dynamodbIntegrations } from '../accounts/integrations.ts';
import { dynamodbVerificationTokens } from '../auth/dynamodb-verification-tokens.ts';
import { dynamodbCrawlRecords } from '../crawler/dynamodb-records.ts';
import { dynamodbDeliveries } from '../deliveries/dynamodb-deliveries.ts';
import { dynamodbPaceSchedule } from '../integrations/dynamodb-pace-schedule.ts';
import { metrics } from '../metrics.ts';
import { dynamodbBatches } from '../onboarding/dynamodb-batches.ts';
import { dynamodbRuns } from '../provisioning/runs.ts';
import { dynamodbBilling, dynamodbBillingReader } from '../payments/dynamodb-billing.ts';
import { dynamodbLedger } from '../provisioning/dynamodb-ledger.ts';
import { dynamodbFollowUps } from '../provisioning/follow-ups.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbBookingTasks } from '../webhooks/dynamodb-booking-tasks.ts';
import { dynamodbMembershipMembers } from '../webhooks/dynamodb-membership-members.ts';
import { dynamodbInboundWebhooks, dynamodbWebhookIntegrations } from '../webhooks/dynamodb-webhook-integrations.ts';
import { kept } from './lazy.ts';

export const accounts = () => kept('store:accounts', () => dynamodbAccounts({ db, tables }));
export const accountReader = () => kept('store:accountReader', () => dynamodbAccountReader({ db, tables }));
/** The account's life cycle: its status, and its offboarding (lib/accounts/lifecycle.ts). */
export const lifecycle = () => kept('store:lifecycle', () => dynamodbLifecycle({ db, tables }));
export const slugs = () => kept('store:slugs', () => dynamodbSlugs({ db, tables }));
export const memberships = () => kept('store:memberships', () => dynamodbMemberships({ db, tables }));
/** What the access guard reads a caller's roles from. */
export const membershipReader = () => kept('store:membershipReader', () => dynamodbMembershipReader({ db, tables }));
export const invitations = () => kept('store:invitations', () => dynamodbInvitations({ db, tables }));
export const invitationReader = () => kept('store:invitationReader', () => dynamodbInvitationReader({ db, tables }));
export const integrations = () => kept('store:integrations', () => dynamodbIntegrations({ db, tables }));
export const verificationTokens = () => kept('store:verificationTokens', () => dynamodbVerificationTokens({ db, tables }));
/** The rate-limit windows every limit of the service counts in. */
export const rateLimiter = () => kept('store:rateLimiter', () => dynamodbRateLimiter({ db, tables }));
/** Onboarding runs: each run's integrations, outcomes and answer. */
export const runs = () => kept('store:runs', () => dynamodbRuns({ db, tables }));
/** What the steps made at the vendors (provisioning). */
export const ledger = () => kept('store:ledger', () => dynamodbLedger({ db, tables }));
/** The operators' list (follow_ups). */
export const followUps = () => kept('store:followUps', () => dynamodbFollowUps({ db, tables, metrics }));
export const billing = () => kept('store:billing', () => dynamodbBilling({ db, tables }));
export const billingReader = () => kept('store:billingReader', () => dynamodbBillingReader({ db, tables }));
/** The delivery log every inbound webhook takes its events once through (webhook_events). */
export const deliveries = () => kept('store:deliveries', () => dynamodbDeliveries({ db, tables }));
export const crawlRecords = () => kept('store:crawlRecords', () => dynamodbCrawlRecords({ db, tables }));
export const webhookIntegrations = () => kept('store:webhookIntegrations', () => dynamodbWebhookIntegrations({ db, tables }));
/** The one read an inbound webhook makes to find whose it is. */
export const inboundWebhooks = () => kept('store:inboundWebhooks', () => dynamodbInboundWebhooks({ db, tables }));
export const membershipMembers = () => kept('store:membershipMembers', () => dynamodbMembershipMembers({ db, tables }));
export const bookingTasks = () => kept('store:bookingTasks', () => dynamodbBookingTasks({ db, tables }));
/** The pacing schedules of vendor calls (pacing). */
export const paceSchedule = () => kept('store:paceSchedule', () => dynamodbPaceSchedule({ db, tables }));
/** Batches of onboardings (onboarding_batches). */
export const batches = () => kept('store:batches', () => dynamodbBatches({ db, tables }));

/** The DynamoDB-backed ports of onboarding, together. */
export const onboardingStores = () =>
  kept('onboardingStores', () => ({
    accounts: accounts(),
    slugs: slugs(),
    integrations: integrations(),
    runs: runs(),
    ledger: ledger(),
    followUps: followUps(),
    lifecycle: lifecycle(),
  }));

/** What the membership webhook takes its deliveries through. */
export const webhookStores = () =>
  kept('webhookStores', () => ({
    integrations: inboundWebhooks(),
    deliveries: deliveries(),
    accounts: accounts(),
    ledger: ledger(),
    members: membershipMembers(),
  }));

/** What the webhook settings routes read and change: the account's integration, once they know the account is there. */
export const webhookSettingsStores = () => kept('webhookSettingsStores', () => ({ accounts: accountReader(), integrations: webhookIntegrations() }));
