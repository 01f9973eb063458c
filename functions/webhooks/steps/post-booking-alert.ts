import { config } from '../../../lib/config.ts';
import { slackChat } from '../../../lib/integrations/slack-chat.ts';
import { vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { postBookingAlert } from '../../../lib/webhooks/steps/post-booking-alert.ts';
import type { BookingStepInput } from '../../../lib/webhooks/steps/record-booking-task.ts';
import { webhookStores } from '../../../lib/webhooks/stores.ts';

const deps = {
  chat: config.chat && slackChat(config.chat, vendorPolicy),
  ledger: webhookStores.ledger,
  accounts: webhookStores.accounts,
};

export const handler = (input: BookingStepInput) => postBookingAlert(deps, input);
