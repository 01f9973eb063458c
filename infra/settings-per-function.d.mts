/** The names among `names` that the bundle's code reads. */
export function settingsReadBy(code: string, names: string[]): string[];
export default class SettingsPerFunction {
  constructor(serverless: unknown, options?: { function?: string });
}
