import { mailer, stepPace, teamAddress } from '../../../lib/adapters.ts';
import { portalUrls } from '../../../lib/config.ts';
import { sendOnboardingEmails } from '../../../lib/onboarding/steps/send-onboarding-emails.ts';
import { stores } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = { mailer: mailer('workflow'), teamAddress: teamAddress(), portalUrl: portalUrls().portal, ledger: stores.ledger, accounts: stores.accounts };

export const handler = integrationStep('resend', stores.runs, (input) => sendOnboardingEmails(deps, input), stepPace('resend'));
