// The account functions' stores and settings, built once per Lambda instance;
// the mailer comes from ../adapters.ts.
import { mailer } from '../adapters.ts';
import { accountOpeningLimit, invitationLimit, portalUrls } from '../config.ts';
import { dynamodbRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbAccounts } from './dynamodb-accounts.ts';
import { dynamodbInvitations } from './dynamodb-invitations.ts';
import { dynamodbMemberships } from './dynamodb-memberships.ts';
import type { OpenAccountDeps } from './open-account.ts';
import type { TeamDeps } from './team.ts';

export const accountStore = dynamodbAccounts({ db, tables });
export const memberships = dynamodbMemberships({ db, tables });
export const invitations = dynamodbInvitations({ db, tables });

/** What issuing invitations needs: a function that does not send them never reads the mail settings. */
const makeTeamDeps = (): TeamDeps => ({
  accounts: accountStore,
  memberships,
  invitations,
  // Invitations are sent while the inviter's request waits.
  mailer: mailer('person'),
  portalUrl: portalUrls().portal,
  invitationLimit: { limiter: dynamodbRateLimiter({ db, tables }), limit: invitationLimit() },
});
export const teamDeps = /* @__PURE__ */ makeTeamDeps();

/** What opening an account on request needs: the store, and the limit of openings per person. */
const makeOpenAccountDeps = (): OpenAccountDeps => ({
  accounts: accountStore,
  memberships,
  openingLimit: { limiter: dynamodbRateLimiter({ db, tables }), limit: accountOpeningLimit() },
});
export const openAccountDeps = /* @__PURE__ */ makeOpenAccountDeps();
