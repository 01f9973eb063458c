import { route } from '../http/route.ts';

export const docsRoutes = {
  openapi: route({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    lambda: { handler: 'functions/docs/openapi.ts', memorySize: 256 },
    summary: 'This API described as OpenAPI 3.1, generated from the schemas the validator uses',
    tag: 'docs',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
  }),
};
