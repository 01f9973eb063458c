import type { AccountStore } from '../accounts/accounts.ts';
import { InvalidInput } from '../errors.ts';
import { bookingProviderOfBody, parseBookingEvent, type BookingProvider } from './booking-events.ts';
import { bookingJobName, type BookingQueue } from './booking-queue.ts';
import type { Delivery, DeliveryResult } from './receive-membership.ts';
import { verifyCalCom, verifyCalendly, type SignedRequest } from './signatures.ts';
import { accountForPathSecret, type SigningKeys, type WebhookIntegrations } from './webhook-integrations.ts';

export interface BookingDeps {
  integrations: Pick<WebhookIntegrations, 'inboundFor'>;
  /** The account's status: a closed account's webhooks answer 410. */
  accounts: Pick<AccountStore, 'getAccount'>;
  queue: BookingQueue;
  now?: () => Date;
}

/**
 * 1. The path secret names the account (404 otherwise; 410 for a closing or closed one).
 * 2. Signatures (bookingSignatureCheck) are verified before the body is read (400).
 * 3. The body must match the route's schema and be a readable Calendly or Cal.com
 *    event (400); other event types are ignored (200).
 * 4. The booking is queued as an execution named after the event (Calendly: event
 *    + invitee URI; Cal.com: triggerEvent + uid), whose workflow does the task and
 *    chat work: that one write decides, so the first copy is 'queued' and every
 *    other 'duplicate', and a delivery that dies before queueing is queued by the retry.
 */
export async function receiveBookingDelivery(deps: BookingDeps, delivery: Delivery): Promise<DeliveryResult> {
  const now = deps.now?.() ?? new Date();
  const integration = await accountForPathSecret(deps, delivery.secret);
  const signedBy = bookingSignatureCheck(integration.signingKeys, delivery, now);
  const body = delivery.readBody();
  const provider = signedBy ?? providerOfHeaders(delivery) ?? bookingProviderOfBody(body);
  const parsed = parseBookingEvent(body, provider);
  if (!parsed.handled) return { outcome: 'ignored', detail: `unhandled event type ${parsed.type}` };

  const { accountId } = integration;
  const booking = parsed.event;
  const eventKey = `booking#${accountId}#${booking.provider}#${booking.eventId}`;
  const name = bookingJobName(eventKey);
  const queued = await deps.queue.enqueue(name, { accountId, eventKey, booking });
  return queued === 'queued' ? { outcome: 'queued', detail: name } : { outcome: 'duplicate' };
}

/** The provider a signature header names, if any. */
function providerOfHeaders(request: SignedRequest): BookingProvider | undefined {
  if (request.headers['calendly-webhook-signature'] !== undefined) return 'calendly';
  if (request.headers['x-cal-signature-256'] !== undefined) return 'calcom';
  return undefined;
}

/**
 * Once an account has configured a booking signing key, every booking
 * delivery must be signed by a provider it configured: an unsigned one, or
 * one signed by a provider without a key, could otherwise be sent by anyone
 * who learned the URL. Answers the provider that signed; undefined when the
 * account configured no booking key.
 */
export function bookingSignatureCheck(keys: SigningKeys, request: SignedRequest, now: Date): BookingProvider | undefined {
  if (!keys.calendly && !keys.calcom) return undefined;
  const provider = providerOfHeaders(request);
  if (provider === 'calendly' && keys.calendly) verifyCalendly(keys.calendly, request, now);
  else if (provider === 'calcom' && keys.calcom) verifyCalCom(keys.calcom, request);
  else {
    const expected = [keys.calendly && 'Calendly-Webhook-Signature', keys.calcom && 'X-Cal-Signature-256'].filter(Boolean).join(' or ');
    throw new InvalidInput(`This booking webhook only accepts deliveries signed with ${expected}`, undefined, 'invalid_signature');
  }
  return provider;
}
