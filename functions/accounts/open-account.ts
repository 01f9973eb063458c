import { signedInUser } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountView } from '../../lib/accounts/account-view.ts';
import { openAccountFor } from '../../lib/accounts/open-account.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { accountStore, memberships, openAccountDeps } from '../../lib/accounts/wiring.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const noRunYet = async () => undefined;

export const handler = httpEndpoint(accountRoutes.openAccount, guard, async ({ access, body }) => {
  const account = await openAccountFor(openAccountDeps, signedInUser(access), { company_name: body.companyName.trim() });
  return json(201, await accountView({ accounts: accountStore, memberships, onboardingOutcome: noRunYet }, account.id, 'owner'));
});
