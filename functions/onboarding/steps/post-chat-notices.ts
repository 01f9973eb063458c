import { portalUrls } from '../../../lib/config.ts';
import { postChatNotices } from '../../../lib/onboarding/steps/post-chat-notices.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { chat, stepPace } from '../../../lib/wiring/adapters.ts';
import { accountReader, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { chat: chat(), portalUrl: portalUrls().portal, ledger: ledger(), accounts: accountReader(), runs: runs() };

export const handler = integrationStep('slack', runs(), (input) => postChatNotices(deps, input), stepPace('slack'));
