// What the account functions' use cases need beyond single stores, built once
// per Lambda instance.
import type { OpenAccountDeps } from '../accounts/open-account.ts';
import type { TeamDeps } from '../accounts/team.ts';
import { accountOpeningLimit, invitationLimit, portalUrls } from '../config.ts';
import { mailer } from './adapters.ts';
import { kept } from './lazy.ts';
import { accounts, invitations, memberships, rateLimiter } from './stores.ts';

/** What issuing invitations needs: a function that does not send them never reads the mail settings. */
export const teamDeps = (): TeamDeps =>
  kept('teamDeps', () => ({
    accounts: accounts(),
    memberships: memberships(),
    invitations: invitations(),
    // Invitations are sent while the inviter's request waits.
    mailer: mailer('person'),
    portalUrl: portalUrls().portal,
    invitationLimit: { limiter: rateLimiter(), limit: invitationLimit() },
  }));

/** What opening an account on request needs: the store, and the limit of openings per person. */
export const openAccountDeps = (): OpenAccountDeps =>
  kept('openAccountDeps', () => ({
    accounts: accounts(),
    memberships: memberships(),
    openingLimit: { limiter: rateLimiter(), limit: accountOpeningLimit() },
  }));
