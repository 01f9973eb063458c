import { chat, stepPace } from '../../../lib/adapters.ts';
import { portalUrls } from '../../../lib/config.ts';
import { postChatNotices } from '../../../lib/onboarding/steps/post-chat-notices.ts';
import { stores } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = { chat: chat(), portalUrl: portalUrls().portal, ledger: stores.ledger, accounts: stores.accounts, runs: stores.runs };

export const handler = integrationStep('slack', stores.runs, (input) => postChatNotices(deps, input), stepPace('slack'));
