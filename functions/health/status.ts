import { adminGuard } from '../../lib/access/wiring.ts';
import { integrationSettings, onboardingStateMachineArn } from '../../lib/config.ts';
import { statusChecks } from '../../lib/health/probes.ts';
import { healthRoutes } from '../../lib/health/routes.ts';
import { cachedStatus, overallStatus } from '../../lib/health/status.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { dynamodb, tables } from '../../lib/store/dynamodb.ts';
import { createStepFunctionsClient } from '../../lib/workflows/step-functions.ts';

// Probed at most once per 30 s by this instance, however often /status is called.
const status = cachedStatus(
  statusChecks(integrationSettings(), {
    dynamodb,
    sfn: createStepFunctionsClient(),
    accountsTable: tables.accounts,
    stateMachineArn: onboardingStateMachineArn(),
  }),
);

// The route's rule names an admin as one, and anyone else as anonymous: only admins see each dependency.
export const handler = httpEndpoint(healthRoutes.status, adminGuard, async ({ access }) => {
  const report = await status();
  return json(200, access.caller.kind === 'anonymous' ? overallStatus(report) : report, { 'cache-control': 'no-store' });
});
