import { postClosingNotice } from '../../../lib/offboarding/steps/post-closing-notice.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { chat, stepPace } from '../../../lib/wiring/adapters.ts';
import { accountReader, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { chat: chat(), ledger: ledger(), accounts: accountReader() };

export const handler = integrationStep('slack', runs(), (input) => postClosingNotice(deps, input), stepPace('slack', 'takeBack'));
