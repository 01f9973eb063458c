import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { LambdaSpec } from '../lambda-spec.ts';
import { ID_PATTERN, type Access } from '../access/rules.ts';

export type { JSONSchema };
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseSpec {
  description: string;
  schema?: JSONSchema;
  /**
   * An error answer's codes (error.code) the route itself gives. The OpenAPI
   * document lists them, with those the HTTP stack answers at this status, as
   * the codes a client can tell apart; the list is open (other codes may come).
   */
  codes?: readonly string[];
  /** A redirect: the response carries Location and no body. */
  redirect?: boolean;
}

/** One HTTP endpoint: the single source for routing, validation, types and docs. */
export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway style, e.g. /api/crawler/accounts/{accountId}/summary */
  path: string;
  operationId: string;
  /** The function that serves it: required of every route of the catalog (lib/api/catalog.ts), whose functions and events infra/functions.ts makes. */
  lambda?: LambdaSpec;
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
  /** Keep the body as the raw string (webhooks verify signatures over the bytes; a batch may come as CSV). */
  rawBody?: boolean;
  /** A batch route: its body is rows, each checked on its own (lib/http/rows.ts); the route is rawBody. */
  rows?: RowsSpec;
  responses: Record<number, ResponseSpec>;
}

/** The rows of a batch route's body: JSON `{ <key>: [...] }` or CSV, at most `max`, each checked against `schema`. */
export interface RowsSpec {
  key: string;
  schema: JSONSchema;
  max: number;
}

/** The JSON body a batch route takes (for its description): its rows under their key. */
export const rowsBody = (rows: RowsSpec) =>
  ({ type: 'object', required: [rows.key], properties: { [rows.key]: { type: 'array', minItems: 1, maxItems: rows.max, items: rows.schema } } }) as const;

export const route = <const R extends RouteSpec>(r: R): R => r;

/** An id in a path: letters, digits and hyphens, never longer than a key may be. */
export const idParam = { type: 'string', maxLength: 100, pattern: ID_PATTERN } as const;

export type BodyOf<R extends RouteSpec> = R['body'] extends JSONSchema ? FromSchema<R['body']> : undefined;
export type QueryOf<R extends RouteSpec> = R['query'] extends JSONSchema
  ? FromSchema<R['query']>
  : Record<string, string | undefined>;
