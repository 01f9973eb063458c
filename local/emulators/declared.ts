// What a vendor's published API declares, for the operations our adapters
// call: each emulator lists those operations with the query parameters and
// body fields the vendor declares for them, and refuses anything else (an
// operation, a query parameter, a body field at any depth) in the vendor's
// own error shape. Many vendors ignore an unknown field instead; the emulators
// refuse it on purpose, so an adapter that drifts from the vendor's API (a
// misspelt or retired field that the vendor would silently drop) fails its
// tests here rather than quietly in production. Each emulator says so in its
// `differences`.
import type { Context, MiddlewareHandler } from 'hono';

/**
 * What a value may be: 'any' (not looked into), an object of declared fields
 * (a key ending in '*' declares every key with that prefix, e.g. Close's
 * 'custom.*'), or an array of one shape.
 */
export type Shape = 'any' | Fields | readonly [Shape];
export type Fields = { readonly [field: string]: Shape };

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the declaration's base; ':name' is one path segment. */
  path: string;
  query?: readonly string[];
  body?: Shape;
  /** Where the arguments travel: a JSON body (the default), a form body, or JSON in a header. */
  argsIn?: 'json' | 'form' | { header: string };
}

/** What was not declared: a path to a field is its keys and array indexes from the top. */
export type Undeclared =
  | { kind: 'operation'; method: string; path: string }
  | { kind: 'query'; name: string }
  | { kind: 'field'; path: readonly (string | number)[] };

export interface Declaration {
  /** The path prefix every operation's path is relative to. */
  base: string;
  operations: readonly Operation[];
  /** The vendor's own answer to what it does not declare. */
  refuse(c: Context, undeclared: Undeclared): Response;
}

/** Hono middleware: lets through only the declared operations, with only declared parameters and fields. */
export function declaredOnly(declaration: Declaration): MiddlewareHandler {
  const operations = declaration.operations.map((op) => ({ ...op, pattern: pathPattern(declaration.base + op.path) }));
  return async (c, next) => {
    const operation = operations.find((op) => op.method === c.req.method && op.pattern.test(c.req.path));
    if (!operation) return declaration.refuse(c, { kind: 'operation', method: c.req.method, path: c.req.path });
    const declaredQuery = new Set(operation.query ?? []);
    for (const name of new URL(c.req.url).searchParams.keys()) {
      // Form-style names (expand[]) are declared by their head.
      if (!declaredQuery.has(name) && !declaredQuery.has(name.split('[', 1)[0]!)) return declaration.refuse(c, { kind: 'query', name });
    }
    const args = await argumentsOf(c, operation.argsIn ?? 'json');
    const stray = args === undefined ? undefined : undeclaredIn(args, operation.body ?? {}, []);
    if (stray) return declaration.refuse(c, { kind: 'field', path: stray });
    return next();
  };
}

/** The first path in `value` that `shape` does not declare. */
export function undeclaredIn(value: unknown, shape: Shape, at: (string | number)[]): (string | number)[] | undefined {
  if (shape === 'any' || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return undefined;
    for (const [i, item] of value.entries()) {
      const stray = undeclaredIn(item, shape[0], [...at, i]);
      if (stray) return stray;
    }
    return undefined;
  }
  if (Array.isArray(value)) return undefined;
  const fields = shape as Fields;
  for (const [key, inner] of Object.entries(value)) {
    const declared = fields[key] ?? Object.entries(fields).find(([name]) => name.endsWith('*') && key.startsWith(name.slice(0, -1)))?.[1];
    if (declared === undefined) return [...at, key];
    const stray = undeclaredIn(inner, declared, [...at, key]);
    if (stray) return stray;
  }
  return undefined;
}

/** The request's arguments; undefined when there are none or they do not parse (the handler answers that). */
async function argumentsOf(c: Context, argsIn: NonNullable<Operation['argsIn']>): Promise<unknown> {
  try {
    if (typeof argsIn === 'object') {
      const header = c.req.header(argsIn.header);
      return header ? JSON.parse(header) : undefined;
    }
    const text = await c.req.raw.clone().text();
    if (!text) return undefined;
    return argsIn === 'form' ? parseForm(text) : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A form body with bracketed names, as Stripe encodes it: a[b][0][c]=v → {a: {b: [{c: 'v'}]}}. */
export function parseForm(body: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const head = rawKey.split('[', 1)[0]!;
    const path = [head, ...[...rawKey.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)];
    let node: any = root;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      const key = segment === '' && Array.isArray(node) ? node.length : segment;
      if (last) node[key] = value;
      else node = node[key] ??= nextIsIndex ? [] : {};
    });
  }
  return root;
}

function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}
