import { grantedAccount } from '../../lib/access/guard.ts';
import { guard } from '../../lib/access/wiring.ts';
import { accountView } from '../../lib/accounts/account-view.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { accountStore, memberships } from '../../lib/accounts/wiring.ts';
import { NotFound } from '../../lib/errors.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { dynamodbRuns, runOutcomes } from '../../lib/onboarding/runs.ts';
import { db, tables } from '../../lib/store/dynamodb.ts';

const deps = { accounts: accountStore, memberships, onboardingOutcome: runOutcomes(dynamodbRuns({ db, tables })) };

export const handler = httpEndpoint(accountRoutes.getAccount, guard, async ({ access }) => {
  const { id, role } = grantedAccount(access);
  const view = await accountView(deps, id, role ?? 'owner');
  if (!view) throw new NotFound('No such account, or not one you belong to');
  return json(200, view, { 'cache-control': 'no-store' });
});
