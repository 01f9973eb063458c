// The chat step of the booking workflow: one alert per delivered event, with
// who booked what and when. Remembered per event, so a retry or redrive never
// posts a confirmed alert twice (Slack has no idempotency key).
import { createHash } from 'node:crypto';
import type { AccountStore } from '../../accounts/accounts.ts';
import type { Chat } from '../../integrations/chat.ts';
import { remembered, type Ledger } from '../../provisioning/ledger.ts';
import { chatMrkdwn } from '../../text.ts';
import { alertText } from '../booking-text.ts';
import type { BookingStepAnswer, BookingStepInput } from './record-booking-task.ts';

export interface BookingAlertDeps {
  chat: Chat | null;
  ledger: Ledger;
  accounts: Pick<AccountStore, 'getAccount'>;
}

export async function postBookingAlert(deps: BookingAlertDeps, input: BookingStepInput): Promise<BookingStepAnswer> {
  const { chat } = deps;
  if (!chat) return { step: 'alert', outcome: 'skipped', detail: 'Slack is not configured in this deployment' };
  const { accountId, booking } = input;
  if (booking.nextBookingId) return { step: 'alert', outcome: 'skipped', detail: 'cancelled by a reschedule; the new booking posts the alert' };
  const account = await deps.accounts.getAccount(accountId);
  const company = account?.company_name ?? `account ${accountId}`;
  const text = alertText(booking, company);
  const key = `slack#booking#${createHash('sha256').update(input.eventKey).digest('hex').slice(0, 32)}`;
  const posted = await remembered(deps.ledger, { accountId, resource: key, maker: input.eventKey }, async () => {
    const { ts } = await chat.post({ text, blocks: [{ type: 'section', text: chatMrkdwn(text) }] });
    return { ts: ts ?? 'incoming-webhook' };
  });
  return { step: 'alert', outcome: 'posted', detail: posted.ts };
}
