// The OpenAPI document of the whole API. Built into the Lambda bundle at build
// time (infra/esbuild-plugins.mjs, buildTimeValues); tests and the local
// stack's watch mode compute it on import, with the same result. The openapi
// function serves `openApiJson`, the document already serialised, so its
// cold start neither builds the object nor serialises it.
import { catalog } from './catalog.ts';
import { buildOpenApi } from './openapi.ts';

export const openApiDocument = buildOpenApi(catalog, {
  title: 'Account, checkout and onboarding automation API',
  version: '1.0.0',
  description: 'Errors always have the shape of components.schemas.Error.',
});

export const openApiJson = JSON.stringify(openApiDocument);
