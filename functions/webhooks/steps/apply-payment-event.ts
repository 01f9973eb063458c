import { logger } from '../../../lib/log.ts';
import type { PaymentJob } from '../../../lib/payments/payment-queue.ts';
import { applyPaymentEventOnce } from '../../../lib/payments/receive-payment-event.ts';
import { teamDeps } from '../../../lib/wiring/accounts.ts';
import { subscriptionWatch } from '../../../lib/wiring/offboarding.ts';
import { accounts, billing, deliveries, followUps, memberships } from '../../../lib/wiring/stores.ts';

const deps = {
  deliveries: deliveries(),
  billing: billing(),
  accounts: accounts(),
  memberships: memberships(),
  team: teamDeps(),
  followUps: followUps(),
  subscriptions: subscriptionWatch(),
};

/** The payments state machine's step: applies one payment event the webhook queued; answers the outcome. */
export const handler = async (job: PaymentJob) => ({
  outcome: await applyPaymentEventOnce({ ...deps, log: logger.with({ step: 'apply-payment-event' }) }, job.event),
});
