import { postBookingAlert } from '../../../lib/webhooks/steps/post-booking-alert.ts';
import type { BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { chat } from '../../../lib/wiring/adapters.ts';
import { accountReader, ledger } from '../../../lib/wiring/stores.ts';

const deps = { chat: chat(), ledger: ledger(), accounts: accountReader() };

export const handler = (input: BookingStepInput) => postBookingAlert(deps, input);
