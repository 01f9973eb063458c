import { sendClosingEmails } from '../../../lib/offboarding/steps/send-closing-emails.ts';
import { integrationStep } from '../../../lib/provisioning/integration-step.ts';
import { mailer, stepPace, teamAddress } from '../../../lib/wiring/adapters.ts';
import { portalUrl } from '../../../lib/wiring/offboarding.ts';
import { accountReader, membershipReader, runs } from '../../../lib/wiring/stores.ts';

const deps = { mailer: mailer('workflow'), accounts: accountReader(), memberships: membershipReader(), portalUrl: portalUrl(), replyTo: teamAddress() };

export const handler = integrationStep('resend', runs(), (input) => sendClosingEmails(deps, input), stepPace('resend', 'takeBack'));
