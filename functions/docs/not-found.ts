import { methodsAt } from '../../lib/api/match.ts';
import { routeTable } from '../../lib/api/route-table.prebuilt.ts';
import { MethodNotAllowed, NotFound } from '../../lib/errors.ts';
import { httpEndpoint } from '../../lib/http/endpoint.ts';
import { route } from '../../lib/http/route.ts';

// The $default route: whatever no other route matched gets the JSON error shape.
const fallback = route({
  method: 'GET',
  path: '/{proxy+}',
  operationId: 'notFound',
  summary: 'Unknown route',
  tag: 'docs',
  access: { who: 'anyone' },
  responses: { 404: { description: 'No such path' }, 405: { description: 'Path exists, method does not' } },
});

export const handler = httpEndpoint(fallback, async ({ rawPath, method }) => {
  const allowed = methodsAt(rawPath, routeTable);
  if (allowed.length > 0 && !allowed.includes(method)) throw new MethodNotAllowed(allowed);
  throw new NotFound('No such route');
});
