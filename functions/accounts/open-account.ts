import { signedInUser } from '../../lib/access/caller.ts';
import { accountView } from '../../lib/accounts/account-view.ts';
import { openAccountFor } from '../../lib/accounts/open-account.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { openAccountDeps } from '../../lib/wiring/accounts.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { accounts, memberships } from '../../lib/wiring/stores.ts';

const opening = openAccountDeps();
const noRunYet = async () => undefined;
const viewDeps = { accounts: accounts(), memberships: memberships(), onboardingOutcome: noRunYet };

export const handler = httpEndpoint(accountRoutes.openAccount, guard(), async ({ access, body }) => {
  const account = await openAccountFor(opening, signedInUser(access), { company_name: body.companyName.trim() });
  return json(201, await accountView(viewDeps, account.id, 'owner'));
});
