import { portalUrls } from '../../../lib/config.ts';
import { sendOnboardingEmails } from '../../../lib/onboarding/steps/send-onboarding-emails.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { mailer, stepPace, teamAddress } from '../../../lib/wiring/adapters.ts';
import { accountReader, invitations, ledger, runs } from '../../../lib/wiring/stores.ts';

const deps = { mailer: mailer('workflow'), teamAddress: teamAddress(), portalUrl: portalUrls().portal, ledger: ledger(), accounts: accountReader(), invitations: invitations() };

export const handler = integrationStep('resend', runs(), (input) => sendOnboardingEmails(deps, input), stepPace('resend'));
