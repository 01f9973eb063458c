import { chat } from '../../../lib/adapters.ts';
import { postBookingAlert } from '../../../lib/webhooks/steps/post-booking-alert.ts';
import type { BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { webhookStores } from '../../../lib/webhooks/stores.ts';

const deps = { chat: chat(), ledger: webhookStores.ledger, accounts: webhookStores.accounts };

export const handler = (input: BookingStepInput) => postBookingAlert(deps, input);
