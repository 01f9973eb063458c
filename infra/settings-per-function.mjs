// A Serverless plugin (serverless.yml `plugins`, after serverless-esbuild):
// each function's environment holds the settings its own bundle reads, and no
// others, so no Lambda carries a secret its code never reads.
//
// serverless.yml lists every setting once, under custom.settings. lib/config.ts
// reads each by its literal name inside a section function, and esbuild leaves
// out of a bundle every section its code cannot reach, so a setting's name is
// in a function's bundle exactly when the function can read it. Once
// serverless-esbuild has built the bundles (the very files that are zipped, or
// that serverless-offline runs), this gives each function those settings,
// before the template or the local Lambdas are made from them. Nothing is
// declared by hand, so nothing can drift: read a new setting in a function and
// it gets it on the next package.
//
// Set by the platform or by Node itself (NODE_OPTIONS) stays in provider.environment.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The names among `names` that the bundle's code reads (as the string literals config.ts reads them by). */
export function settingsReadBy(code, names) {
  return names.filter((name) => code.includes(`"${name}"`) || code.includes(`'${name}'`));
}

export default class SettingsPerFunction {
  constructor(serverless, options) {
    this.serverless = serverless;
    /** `deploy function -f <key>` builds that one function only. */
    this.only = options?.function;
    const scope = () => this.scope();
    // Each runs after serverless-esbuild's hook of the same event, which builds the bundles.
    this.hooks = {
      'before:package:createDeploymentArtifacts': scope,
      'before:deploy:function:deploy': scope,
      'before:offline:start': scope,
      'before:offline:start:init': scope,
    };
  }

  scope() {
    const service = this.serverless.service;
    const settings = service.custom?.settings ?? {};
    for (const [key, fn] of Object.entries(service.functions ?? {})) {
      if (this.only && key !== this.only) continue;
      const read = settingsReadBy(bundleCode(this.serverless, key, fn, 'settings-per-function'), Object.keys(settings));
      fn.environment = { ...Object.fromEntries(read.map((name) => [name, settings[name]])), ...fn.environment };
    }
  }
}

/** The code of the function's bundle as serverless-esbuild built it (the file that is zipped, or that serverless-offline runs). */
export function bundleCode(serverless, key, fn, plugin) {
  const esbuild = serverless.pluginManager.plugins.find((p) => p.constructor?.name === 'EsbuildServerlessPlugin');
  if (!esbuild?.buildDirPath) throw new Error(`${plugin} needs serverless-esbuild listed before it in serverless.yml plugins`);
  const extension = serverless.service.custom?.esbuild?.outputFileExtension ?? '.js';
  const bundle = join(esbuild.buildDirPath, `${fn.handler.replace(/\.[^.]+$/, '')}${extension}`);
  try {
    return readFileSync(bundle, 'utf8');
  } catch {
    throw new Error(`${plugin}: no bundle for ${key} at ${bundle}`);
  }
}
