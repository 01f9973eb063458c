import { stageName } from '../../lib/config.ts';
import { healthRoutes } from '../../lib/health/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const stage = stageName();

export const handler = httpEndpoint(healthRoutes.health, async () =>
  json(200, { status: 'ok', service: 'agency-backend', stage, time: new Date().toISOString() }),
);
