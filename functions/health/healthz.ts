import { healthRoutes } from '../../lib/health/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(healthRoutes.healthz, async () => json(200, { status: 'ok' }));
