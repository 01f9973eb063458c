/** The names among `names` that the bundle's code reads. */
export function settingsReadBy(code: string, names: string[]): string[];
export default class SettingsPerFunction {
  constructor(serverless: unknown, options?: { function?: string });
}
/** The code of the function's bundle as serverless-esbuild built it. */
export function bundleCode(serverless: unknown, key: string, fn: { handler: string }, plugin: string): string;
