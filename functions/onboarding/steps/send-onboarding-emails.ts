import { mailer, teamAddress } from '../../../lib/adapters.ts';
import { portalUrls } from '../../../lib/config.ts';
import { integrationStep } from '../../../lib/onboarding/steps/integration-step.ts';
import { sendOnboardingEmails } from '../../../lib/onboarding/steps/send-onboarding-emails.ts';
import { stores } from '../../../lib/onboarding/stores.ts';

const deps = { mailer: mailer('workflow'), teamAddress: teamAddress(), portalUrl: portalUrls().portal, ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('resend', stores.runs, (input) => sendOnboardingEmails(deps, input));
