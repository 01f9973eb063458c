// The event schema a route implies, and a stable key to find its validator.
// Free of dependencies: Lambda bundles import it beside their precompiled validators.
import type { RouteSpec } from './route.ts';

/** The schema of the Lambda event a route accepts: its body, query and path parameters; undefined when there is nothing to check. */
export function eventSchemaOf(spec: RouteSpec): Record<string, unknown> | undefined {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (spec.body && !spec.rawBody) {
    properties.body = spec.body;
    required.push('body');
  }
  if (spec.query) {
    properties.queryStringParameters = spec.query;
    required.push('queryStringParameters');
  }
  if (spec.params) {
    properties.pathParameters = spec.params;
    required.push('pathParameters');
  }
  return required.length ? { type: 'object', properties, required } : undefined;
}

/**
 * The schema a raw-body route's body is checked against when its handler reads
 * it (HttpRequest.readBody), after checking the signature over the bytes;
 * undefined for other routes (their body is part of the event schema).
 */
export function rawBodySchemaOf(spec: RouteSpec): Record<string, unknown> | undefined {
  return spec.rawBody && spec.body && typeof spec.body === 'object' ? (spec.body as Record<string, unknown>) : undefined;
}

/** A stable text of a schema (key order does not matter). */
export function schemaKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(schemaKey).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${schemaKey((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The schema each row of a batch route's body is checked against (RouteSpec.rows); undefined for other routes. */
export function rowSchemaOf(spec: RouteSpec): Record<string, unknown> | undefined {
  return spec.rows ? (spec.rows.schema as Record<string, unknown>) : undefined;
}
