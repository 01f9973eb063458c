// esbuild plugins for the Lambda bundles (serverless.yml custom.esbuild.plugins;
// the bench builds with the same ones).
//
// precompiledValidators: in each function's bundle, lib/http/validators.ts
// (which compiles JSON schemas with ajv at cold start) is replaced by ajv's
// standalone code for exactly the routes that function serves, compiled with
// the same ajv setup (lib/http/validation.ts): the schema compiler is not even
// in the bundle (docs/performance.md has what it buys).
//
// builtinsThroughRequire: an ESM `import ... from 'node:http'` makes Node build
// the module's ESM facade, which reads every export, including node:http's
// lazy WebSocket/fetch getters: that loads Node's whole undici, http2 and tls.
// A CommonJS require() reads nothing, so the bundles take Node's built-in
// modules through require() (the banner defines it; docs/performance.md).
//
// Built-ins also load lazily: a built-in whose export is a plain object (http,
// https, zlib, http2, crypto...) is bundled as an object of getters that
// require() it on the first read of one of its members, so a module that
// imports https at its top but only uses it for a request it never makes (the
// AWS SDK's HTTP handler does, for http2 and zlib too) costs nothing.
//
// credentialsFromEnvironment: the AWS SDK clients resolve credentials with
// @aws-sdk/credential-provider-node, the whole default chain (SSO, STS, web
// identity, ini files, process, container and instance metadata), whose code
// is most of a DynamoDB bundle. A Lambda gets its role's credentials in
// environment variables, and the local stack sets them there too, so the
// bundles take the environment provider in its place (docs/performance.md),
// memoised as the chain is, so that no AWS call reads the environment again.
//
// buildTimeValues: a module named *.prebuilt.ts is evaluated at build time and
// bundled as its exported values (JSON), so what it imports and computes
// costs nothing at cold start (the OpenAPI document, built from every route's
// schemas, is one).
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const load = (path) => import(pathToFileURL(join(root, path)).href);

/** FNV-1a over the schema's stable text: cheap at cold start (no node:crypto), collisions refused at build. */
export function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16);
}

/**
 * @param functions the service's functions as Serverless resolves them ({ key: { handler, events } }; infra/functions.ts)
 */
export function precompiledValidators(functions) {
  return {
    name: 'precompiled-validators',
    setup(build) {
      const entry = relative(root, resolve(root, String(build.initialOptions.entryPoints?.[0] ?? '')));
      build.onLoad({ filter: /[\\/]lib[\\/]http[\\/]validators\.ts$/ }, async () => ({
        contents: await validatorsModule(functions, entry),
        loader: 'js',
        resolveDir: join(root, 'lib/http'),
      }));
    },
  };
}

async function validatorsModule(functions, entry) {
  const { catalog } = await load('lib/api/catalog.ts');
  const { eventSchemaOf, rawBodySchemaOf, rowSchemaOf, schemaKey } = await load('lib/http/event-schema.ts');
  const { newAjv } = await load('lib/http/validation.ts');
  const { default: standalone } = await import('ajv/dist/standalone/index.js');
  const { _ } = await import('ajv');

  // The routes of the function(s) whose handler file is this entry point.
  const handlerFile = entry.replace(/\.[cm]?[jt]s$/, '');
  const routes = Object.values(functions)
    .filter((fn) => fn.handler?.replace(/\.[^.]+$/, '') === handlerFile)
    .flatMap((fn) => (fn.events ?? []).map((e) => e.httpApi).filter((h) => h && typeof h === 'object'))
    .map((h) => catalog.find((r) => r.method === String(h.method).toUpperCase() && r.path === h.path))
    .filter(Boolean);

  const ajv = newAjv({ code: { source: true, esm: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });
  const keys = new Map(); // hash → the schema text it stands for
  for (const schema of routes.flatMap((route) => [eventSchemaOf(route), rawBodySchemaOf(route), rowSchemaOf(route)])) {
    if (!schema) continue;
    const key = schemaKey(schema);
    const hash = fnv1a(key);
    if (keys.has(hash) && keys.get(hash) !== key) throw new Error(`Two request schemas hash alike (${hash}): change one`);
    if (keys.has(hash)) continue;
    ajv.addSchema(schema, `v${hash}`);
    keys.set(hash, key);
  }
  const ids = [...keys.keys()].map((hash) => `v${hash}`);
  const code = ids.length ? standalone.default(ajv, Object.fromEntries(ids.map((id) => [id, id]))) : '';
  return `${code}
import { schemaKey } from './event-schema.ts';
const precompiled = { ${ids.map((id) => `${JSON.stringify(id.slice(1))}: ${id}`).join(', ')} };
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16);
}
export function validatorFor(schema) {
  const validate = precompiled[fnv1a(schemaKey(schema))];
  if (!validate) throw new Error('No precompiled validator for this route: is it in lib/api/catalog.ts, with this function as its lambda?');
  return validate;
}
`;
}

const requireBuiltin = createRequire(import.meta.url);

/** The CommonJS text that stands for a built-in module in a bundle. */
export function builtinModule(name) {
  const exported = requireBuiltin(name);
  // A module that is itself a function or class (events, stream, assert) is used as one at once.
  if (typeof exported === 'function') return `module.exports = require(${JSON.stringify(name)});`;
  const members = Object.keys(exported);
  return [
    `let loaded;`,
    `const load = () => (loaded ??= require(${JSON.stringify(name)}));`,
    `for (const name of ${JSON.stringify(members)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
  ].join('\n');
}

export function builtinsThroughRequire() {
  return {
    name: 'builtins-through-require',
    setup(build) {
      build.onResolve({ filter: /^[a-z_:/0-9]+$/ }, (args) =>
        isBuiltin(args.path) && args.namespace !== 'builtin-require' ? { path: args.path, namespace: 'builtin-require' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({ contents: builtinModule(args.path), loader: 'js' }));
    },
  };
}

export function credentialsFromEnvironment() {
  return {
    name: 'credentials-from-environment',
    setup(build) {
      build.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, () => ({ path: 'credential-provider-node', namespace: 'credentials-from-environment' }));
      build.onLoad({ filter: /.*/, namespace: 'credentials-from-environment' }, () => ({
        // Kept as the default chain keeps them: read once, again only when they near their expiration.
        contents: [
          `import { fromEnv } from '@aws-sdk/credential-provider-env';`,
          `import { doesIdentityRequireRefresh, isIdentityExpired, memoizeIdentityProvider } from '@smithy/core';`,
          `export const defaultProvider = (init) => memoizeIdentityProvider(fromEnv(init), isIdentityExpired, doesIdentityRequireRefresh);`,
        ].join('\n'),
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

export function buildTimeValues() {
  return {
    name: 'build-time-values',
    setup(build) {
      build.onLoad({ filter: /\.prebuilt\.ts$/ }, async (args) => {
        const values = await import(pathToFileURL(args.path).href);
        const lines = Object.entries(values).map(([name, value]) => {
          const json = JSON.stringify(value);
          if (json === undefined || typeof value === 'function') throw new Error(`${args.path}: export ${name} is not a JSON value`);
          // A string is a string literal. Other values: V8 reads JSON text faster than the same
          // data as an object literal. Pure: an export the bundle does not use is dropped, not parsed.
          if (typeof value === 'string') return `export const ${name} = ${json};`;
          return `export const ${name} = /* @__PURE__ */ JSON.parse(${JSON.stringify(json)});`;
        });
        return { contents: lines.join('\n'), loader: 'js' };
      });
    },
  };
}

/** What serverless-esbuild loads: it calls this with the Serverless instance. */
export default function plugins(serverless) {
  return [precompiledValidators(serverless.service.functions ?? {}), builtinsThroughRequire(), credentialsFromEnvironment(), buildTimeValues()];
}
