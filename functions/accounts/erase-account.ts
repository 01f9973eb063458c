import { actorOf } from '../../lib/access/caller.ts';
import { accountRoutes } from '../../lib/accounts/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { eraseAccount } from '../../lib/offboarding/erase.ts';
import { adminGuard } from '../../lib/wiring/guards.ts';
import { erasureDeps } from '../../lib/wiring/offboarding.ts';

const deps = erasureDeps();

export const handler = httpEndpoint(accountRoutes.eraseAccount, adminGuard(), async (request) => {
  const accountId = request.pathParams.accountId!;
  const erasure = await eraseAccount(deps, accountId, { by: actorOf(request.access.caller), storage: request.body?.storage ?? false });
  const body = { accountId, status: erasure.status, ...(erasure.record.erased_at ? { erasedAt: erasure.record.erased_at } : {}), places: erasure.record.places };
  if (erasure.complete) return json(200, body);
  const failed = Object.entries(erasure.record.places).filter(([, p]) => p.outcome === 'failed').map(([name]) => name);
  return json(502, {
    ...body,
    error: { code: 'erasure_incomplete', message: `Not erased yet: ${failed.join(', ')} failed; what was done is recorded, and nothing of ours was erased. Call again to finish.` },
    requestId: request.correlationId,
  });
});
