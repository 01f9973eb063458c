// Compiles a route's event schema at cold start. Only tests and development
// use this module: a Lambda bundle gets, in its place, the same validators
// precompiled at build time (infra/esbuild-plugins.mjs), so no schema is
// compiled (and no schema compiler is loaded) when a Lambda starts.
import { newAjv } from './validation.ts';

const ajv = newAjv();

export function validatorFor(schema: Record<string, unknown>) {
  return ajv.compile(schema);
}
