import { openApiJson } from '../../lib/api/openapi-document.prebuilt.ts';
import { docsRoutes } from '../../lib/api/routes.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';

export const handler = httpEndpoint(docsRoutes.openapi, async () => json(200, openApiJson));
