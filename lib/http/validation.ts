// The ajv setup that turns request schemas into validators, in one place:
// used at cold start in tests and development (validators.ts), and at build
// time to precompile the validators of Lambda bundles (infra/esbuild-plugins.mjs).
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/** No type coercion: a number where a string belongs is an error, not a guess. */
export const ajvOptions = { strict: true, allErrors: true, coerceTypes: false, useDefaults: false, messages: true } as const;

export function newAjv(extra: Record<string, unknown> = {}) {
  const ajv = new Ajv2020({ ...ajvOptions, ...extra });
  // ajv-formats is CommonJS; its `default` is the plugin both at runtime and in its types.
  formats.default(ajv);
  return ajv;
}
