/** The names among `entries` of folders serverless-esbuild staged, in process `pid`, for one of `functions`. */
export function stagingFolders(entries: string[], functions: string[], pid: number | string): string[];
export default class ZipStagingCleanup {
  constructor(serverless: unknown);
}
