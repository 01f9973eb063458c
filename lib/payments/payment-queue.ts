// The payment webhook answers once the event is verified and queued; the
// payments state machine (statemachines/payments.ts) applies it, one
// execution per event (lib/workflows/queue.ts).
import { jobName, type Queue } from '../workflows/queue.ts';
import type { BillingEvent } from './payments.ts';

export interface PaymentJob {
  /** The verified event, as the provider adapter read it. */
  event: BillingEvent;
}

export type PaymentQueue = Queue<PaymentJob>;

/** The delivery log's key of a payment event (webhook_events), which the execution is named after. */
export const paymentEventKey = (eventId: string) => `stripe#${eventId}`;
export const paymentJobName = (eventId: string) => jobName('payment', paymentEventKey(eventId));
