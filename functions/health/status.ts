import { healthRoutes } from '../../lib/health/routes.ts';
import { cachedStatus, overallStatus } from '../../lib/health/status.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { statusDeps } from '../../lib/wiring/health.ts';

// Probed at most once per 30 s by this instance, however often /status is called.
const status = cachedStatus(statusDeps());

// The route's rule names an admin as one, and anyone else as anonymous: only admins see each dependency.
export const handler = httpEndpoint(healthRoutes.status, adminGuard(), async ({ access }) => {
  const report = await status();
  return json(200, access.caller.kind === 'anonymous' ? overallStatus(report) : report, { 'cache-control': 'no-store' });
});
