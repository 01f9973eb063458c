import { config } from '../../../lib/config.ts';
import { resendMailer } from '../../../lib/integrations/resend-mailer.ts';
import { sendOnboardingEmails } from '../../../lib/onboarding/steps/send-onboarding-emails.ts';
import { stores, vendorPolicy } from '../../../lib/onboarding/stores.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';

const deps = {
  mailer: config.email && resendMailer(config.email, vendorPolicy),
  teamAddress: config.email?.teamAddress,
  portalUrl: config.urls.portal,
  ledger: stores.ledger,
  accounts: stores.accounts,
};

export const handler = integrationStep('resend', stores.runs, (input) => sendOnboardingEmails(deps, input));
