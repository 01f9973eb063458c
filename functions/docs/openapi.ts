import { catalog } from '../../lib/api/catalog.ts';
import { buildOpenApi } from '../../lib/api/openapi.ts';
import { docsRoutes } from '../../lib/api/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

const document = buildOpenApi(catalog, {
  title: 'Account, checkout and onboarding automation API',
  version: '1.0.0',
  description: 'Errors always have the shape of components.schemas.Error.',
});

export const handler = httpEndpoint(docsRoutes.openapi, async () => json(200, document));
