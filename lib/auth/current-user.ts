import { accountsOf, type AccountViewDeps } from '../accounts/account-view.ts';
import type { InvitationStore } from '../accounts/invitations.ts';
import { invitationsWaitingFor, type TeamDeps } from '../accounts/team.ts';
import type { IdentityUser } from '../identity/identity.ts';
import { toPublicUser } from './auth.ts';

export type CurrentUserDeps = Pick<AccountViewDeps, 'accounts' | 'memberships'> & Pick<TeamDeps, 'now'> & { invitations: Pick<InvitationStore, 'toEmail'> };

/**
 * The signed-in user as the provider knows them now (the route's rule has
 * asked it, so a revoked token never gets here), the accounts they belong to
 * with their role, plan and subscription status, and the invitations waiting
 * at their address once it is verified.
 */
export async function currentUser(deps: CurrentUserDeps, user: IdentityUser) {
  const [accounts, invitations] = await Promise.all([
    accountsOf(deps, user.id),
    user.emailConfirmed ? invitationsWaitingFor(deps, user.email) : Promise.resolve([]),
  ]);
  return { ...toPublicUser(user), accounts, invitations };
}
