// A Serverless plugin (serverless.yml `plugins`, after serverless-esbuild):
// removes the folders serverless-esbuild stages its zips in.
//
// serverless-esbuild 1.57 copies each function's files into a folder of the
// OS temp folder, "<function>-<pid>-<ms>-<8 hex>", zips it, then removes it
// without `recursive` and ignores the failure (ENOTEMPTY), so every folder
// stays, a copy of every function per `sls package` or deploy, on every
// machine that packages it (a CI runner, the test suite, the bench, an
// operator's laptop). Reported upstream as
// floydspace/serverless-esbuild#589. Once packaging is done, this removes the
// folders that this very process staged (its pid is in their names) for this
// service's functions, and nothing else. (A packaging that fails part-way
// never reaches these hooks: its folders stay, as before.)
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The names among `entries` of folders serverless-esbuild staged, in process `pid`, for one of `functions`. */
export function stagingFolders(entries, functions, pid) {
  const keys = new Set(functions);
  return entries.filter((name) => {
    const match = /^(.+)-(\d+)-\d{13}-[0-9a-f]{8}$/.exec(name);
    return match !== null && match[2] === String(pid) && keys.has(match[1]);
  });
}

export default class ZipStagingCleanup {
  constructor(serverless) {
    this.serverless = serverless;
    const cleanup = () => this.cleanup();
    // serverless-esbuild zips in the `before:` hooks of these events.
    this.hooks = {
      'after:package:createDeploymentArtifacts': cleanup,
      'after:deploy:function:packageFunction': cleanup,
    };
  }

  cleanup(folder = tmpdir(), pid = process.pid) {
    const functions = Object.keys(this.serverless.service.functions ?? {});
    for (const name of stagingFolders(readdirSync(folder), functions, pid)) rmSync(join(folder, name), { recursive: true, force: true });
  }
}
