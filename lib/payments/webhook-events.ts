// The log of inbound webhook deliveries (table `webhook_events`), keyed by
// provider and event id. Its claim is a conditional put, so of any number of
// concurrent deliveries of one event exactly one is "first"; it is the fast
// path for duplicates, not the only guard: whatever an event changes is also
// written conditionally, so an event claimed by a delivery that then crashed
// is safely taken up by the next delivery.

export type Claim =
  /** No delivery of this event was seen before. */
  | 'first'
  /** Another delivery claimed it and has not finished (it may still be running, or it crashed). */
  | 'unfinished'
  /** A delivery of this event was already processed to the end. */
  | 'finished';

export interface WebhookEventLog {
  claim(provider: string, eventId: string, eventType: string): Promise<Claim>;
  /** Marks the event processed, with what it did. */
  finish(provider: string, eventId: string, result: { outcome: string; accountId?: string }): Promise<void>;
}
