// The account functions' stores and settings, built once per Lambda instance.
import { config } from '../config.ts';
import { policyFrom } from '../integrations/http-client.ts';
import { resendMailer } from '../integrations/resend-mailer.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbAccounts } from './dynamodb-accounts.ts';
import { dynamodbInvitations } from './dynamodb-invitations.ts';
import { dynamodbMemberships } from './dynamodb-memberships.ts';
import type { TeamDeps } from './team.ts';

export const accountStore = dynamodbAccounts({ db, tables });
export const memberships = dynamodbMemberships({ db, tables });
export const invitations = dynamodbInvitations({ db, tables });

export const teamDeps: TeamDeps = {
  accounts: accountStore,
  memberships,
  invitations,
  mailer: config.email && resendMailer(config.email, policyFrom(config.vendors)),
  portalUrl: config.urls.portal,
};
