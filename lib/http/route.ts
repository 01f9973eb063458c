import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export type { JSONSchema };
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. The endpoint factory does not enforce this (each
 * capability owns its credential checks); it feeds the OpenAPI document and
 * the tests that prove every route refuses what it should.
 */
export type Access =
  | 'public'
  | 'user' // Authorization: Bearer <identity-provider access token>
  | 'service-or-user' // x-api-key internal token, or the bearer token of the body's user
  | 'admin' // admin key, or a user marked admin in app_metadata
  | 'path-secret' // a per-account secret in the path
  | 'signed'; // a provider signature over the raw body

export interface ResponseSpec {
  description: string;
  schema?: JSONSchema;
  /** A redirect: the response carries Location and no body. */
  redirect?: boolean;
}

/** One HTTP endpoint: the single source for routing, validation, types and docs. */
export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway style, e.g. /api/crawler/accounts/{accountId}/summary */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  body?: JSONSchema;
  query?: JSONSchema;
  /**
   * The path parameters' schema. Ids get one, so a malformed id is a 400
   * before anything looks it up; a path secret deliberately has none (any
   * wrong secret, whatever its shape, must look the same: 404).
   */
  params?: JSONSchema;
  /** Keep the body as the raw string (webhooks verify signatures over the bytes). */
  rawBody?: boolean;
  responses: Record<number, ResponseSpec>;
}

export const route = <const R extends RouteSpec>(r: R): R => r;

/** An id in a path: letters, digits and hyphens, never longer than a key may be. */
export const idParam = { type: 'string', pattern: '^[A-Za-z0-9-]{1,100}$' } as const;

export type BodyOf<R extends RouteSpec> = R['body'] extends JSONSchema ? FromSchema<R['body']> : undefined;
export type QueryOf<R extends RouteSpec> = R['query'] extends JSONSchema
  ? FromSchema<R['query']>
  : Record<string, string | undefined>;
