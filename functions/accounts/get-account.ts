import { grantedAccount } from '../../lib/access/caller.ts';
import { accountView } from '../../lib/accounts/account-view.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { NotFound } from '../../lib/errors.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { runOutcomes } from '../../lib/provisioning/runs.ts';
import { guard } from '../../lib/wiring/guards.ts';
import { accountReader, membershipReader, runs } from '../../lib/wiring/stores.ts';

const deps = { accounts: accountReader(), memberships: membershipReader(), onboardingOutcome: runOutcomes(runs()) };

export const handler = httpEndpoint(accountRoutes.getAccount, guard(), async ({ access }) => {
  const { id, role } = grantedAccount(access);
  const view = await accountView(deps, id, role ?? 'owner');
  if (!view) throw new NotFound('No such account, or not one you belong to');
  return json(200, view, { 'cache-control': 'no-store' });
});
