import { needsCaller, type Access } from '../access/rules.ts';
import { rowsBody, type JSONSchema, type ResponseSpec, type RouteSpec } from '../http/route.ts';
import { allowedWhileClosed, PERMISSIONS } from '../permissions.ts';

const errorBody = {
  type: 'object',
  required: ['error', 'requestId'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable, machine-readable reason, e.g. invalid_request' },
        message: { type: 'string', description: 'Human-readable; never contains secrets' },
        details: { $ref: '#/components/schemas/ErrorDetails' },
      },
    },
    requestId: { type: 'string', description: 'Correlation id, also in the x-correlation-id header' },
  },
} as const;

const errorDetails = {
  type: 'array',
  description: 'One per problem: where (a JSON pointer into the request: /body/email, /query/plan) and what is wrong',
  items: { type: 'object', required: ['message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
} as const;

/**
 * The error body, its code one of the listed ones or another: an open set
 * (JSON Schema's anyOf), so a client can name and complete the known codes
 * without a new code ever breaking it. Inline rather than Error narrowed by
 * allOf, whose intersection type would lose the known codes in TypeScript.
 */
const errorWithCodes = (codes: readonly string[]) => ({
  type: 'object',
  required: ['error', 'requestId'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { anyOf: [{ enum: codes }, { type: 'string' }] }, message: { type: 'string' }, details: { $ref: '#/components/schemas/ErrorDetails' } },
    },
    requestId: { type: 'string' },
  },
});

/**
 * The codes the HTTP stack itself answers with at an error status, by what the
 * route takes (lib/http/errors.ts, lib/http/endpoint.ts, lib/access/permission-guard.ts).
 */
/** A member route the guard refuses on a closing or closed account (lib/permissions.ts WHILE_CLOSED). */
const refusedWhenClosed = (r: RouteSpec) => r.access.who === 'member' && !allowedWhileClosed(r.method, r.access.permission);
const CLOSED: ResponseSpec = { description: 'The account is closing or closed: it can only be read, closed and reopened (account_closed)' };

function stackCodes(r: RouteSpec, status: number): string[] {
  const member = r.access.who === 'member' ? r.access : undefined;
  switch (status) {
    case 400:
      return [
        // A raw body is read once its signature holds (rawBodyReader): its own codes.
        ...(r.body && r.rawBody ? ['malformed_json', 'invalid_payload'] : r.body ? ['invalid_request', 'malformed_json'] : r.query || r.params || member ? ['invalid_request'] : []),
        ...(member && 'named' in member.account ? ['account_required'] : []),
      ];
    case 401:
      return needsCaller(r.access) ? ['unauthenticated'] : [];
    case 403:
      return member || r.access.who === 'admin' ? ['forbidden'] : [];
    case 404:
      return member && 'runPath' in member.account ? ['not_found'] : member ? ['account_not_found'] : [];
    case 413:
      return ['payload_too_large'];
    case 415:
      return ['unsupported_media_type'];
    case 409:
      return refusedWhenClosed(r) ? ['account_closed'] : [];
    case 429:
      return ['rate_limited'];
    case 500:
      return ['internal_error', 'misconfigured'];
    default:
      return [];
  }
}

/** The credentials a route takes, as OpenAPI security requirements (any one of them). */
function securityFor(access: Access): Record<string, string[]>[] {
  switch (access.who) {
    case 'anyone':
      // No credentials needed; an admin's are taken (and must then be valid).
      return access.recognise === 'admin' ? [{}, { adminKey: [] }, { bearerAuth: [] }] : [];
    case 'user':
      return [{ bearerAuth: [] }];
    case 'admin':
      return [{ adminKey: [] }, ...(access.serviceKey ? [{ internalApiKey: [] }] : []), { bearerAuth: [] }];
    case 'member':
      return [
        ...(access.adminKey ? [{ adminKey: [] }] : []),
        ...(access.serviceKey ? [{ internalApiKey: [] }] : []),
        { bearerAuth: [] },
        ...(access.anonymous ? [{}] : []),
      ];
    default:
      return [];
  }
}

/** The route's access rule in words, with the roles the permission table gives it (x-access). */
function accessNote(access: Access) {
  if (access.who === 'anyone' && access.recognise) return { who: access.who, recognise: access.recognise };
  if (access.who === 'admin' && access.serviceKey) return { who: access.who, serviceKey: true };
  if (access.who !== 'member') return { who: access.who };
  const account =
    'path' in access.account
      ? `the path's ${access.account.path}`
      : 'runPath' in access.account
        ? `the account of the run in the path`
        : `accountId in the ${access.account.named}, else the caller's only account`;
  return {
    who: 'member',
    permission: access.permission,
    roles: PERMISSIONS[access.permission],
    account,
    ...(access.serviceKey ? { serviceKey: true } : {}),
    ...(access.adminKey ? { adminKey: true } : {}),
  };
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
  serverUrl?: string;
}

/** An OpenAPI 3.1 document of the given routes, straight from their schemas. */
export function buildOpenApi(routes: readonly RouteSpec[], info: OpenApiInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, ...(info.description ? { description: info.description } : {}) },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    paths,
    components: {
      schemas: { Error: errorBody, ErrorDetails: errorDetails },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Identity-provider access token from login' },
        internalApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Internal service token' },
        adminKey: { type: 'apiKey', in: 'header', name: 'x-admin-key', description: 'Admin key for internal tools' },
      },
    },
  };
}

function operation(r: RouteSpec) {
  const parameters = [
    ...[...r.path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: ((r.params as { properties?: Record<string, unknown> } | undefined)?.properties?.[m[1]!] as object | undefined) ?? { type: 'string' },
      ...(r.access.who === 'path-secret' ? { description: 'Per-account secret; keep it private' } : {}),
    })),
    ...queryParameters(r.query),
  ];
  const responses: Record<string, unknown> = {};
  const answers: Record<string, ResponseSpec> = refusedWhenClosed(r) && !r.responses[409] ? { ...r.responses, 409: CLOSED } : r.responses;
  for (const [status, spec] of Object.entries(answers)) {
    const isError = Number(status) >= 400;
    const codes = isError ? [...new Set([...(spec.codes ?? []), ...stackCodes(r, Number(status))])] : [];
    const errorSchema = codes.length ? errorWithCodes(codes) : { $ref: '#/components/schemas/Error' };
    responses[status] = {
      description: spec.description,
      ...(spec.redirect
        ? { headers: { Location: { schema: { type: 'string', format: 'uri' } } } }
        : spec.schema || isError
          ? { content: { 'application/json': { schema: spec.schema ?? errorSchema } } }
          : {}),
    };
  }
  return {
    operationId: r.operationId,
    summary: r.summary,
    tags: [r.tag],
    security: securityFor(r.access),
    'x-access': accessNote(r.access),
    ...(parameters.length ? { parameters } : {}),
    ...(r.rows
      ? {
          requestBody: {
            required: true,
            description: `Each row is checked on its own: the valid ones are taken, the others listed by line. As CSV, the first line names the columns (the fields of a row); an empty cell is a field not given.`,
            content: { 'application/json': { schema: rowsBody(r.rows) }, 'text/csv': { schema: { type: 'string' } } },
          },
        }
      : {}),
    ...(r.body
      ? {
          requestBody: {
            required: true,
            ...(r.rawBody ? { description: 'The signature is verified over the raw bytes; only then is the body read and checked against this schema' } : {}),
            content: { 'application/json': { schema: r.body } },
          },
        }
      : {}),
    responses,
  };
}

function queryParameters(schema: JSONSchema | undefined) {
  if (!schema || typeof schema !== 'object') return [];
  const properties = (schema.properties ?? {}) as Record<string, JSONSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({ name, in: 'query', required: required.has(name), schema: s }));
}
