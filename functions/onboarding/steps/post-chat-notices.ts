import { config } from '../../../lib/config.ts';
import { slackChat } from '../../../lib/integrations/slack-chat.ts';
import { postChatNotices } from '../../../lib/onboarding/steps/post-chat-notices.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = {
  chat: config.chat && slackChat(config.chat, vendorPolicy),
  portalUrl: config.urls.portal,
  ledger: stores.ledger,
  accounts: stores.accounts,
  runs: stores.runs,
};

export const handler = integrationStep('slack', stores.runs, (input) => postChatNotices(deps, input));
