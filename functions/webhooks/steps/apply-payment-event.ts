import { memberships, teamDeps } from '../../../lib/accounts/wiring.ts';
import { logger } from '../../../lib/log.ts';
import type { PaymentJob } from '../../../lib/payments/payment-queue.ts';
import { applyPaymentEventOnce } from '../../../lib/payments/receive-payment-event.ts';
import { accountStore, billingStore, deliveryLog, followUpList } from '../../../lib/payments/wiring.ts';

const deps = {
  deliveries: deliveryLog(),
  billing: billingStore(),
  accounts: accountStore(),
  memberships,
  team: teamDeps,
  followUps: followUpList(),
};

/** The payments state machine's step: applies one payment event the webhook queued; answers the outcome. */
export const handler = async (job: PaymentJob) => ({
  outcome: await applyPaymentEventOnce({ ...deps, log: logger.with({ step: 'apply-payment-event' }) }, job.event),
});
