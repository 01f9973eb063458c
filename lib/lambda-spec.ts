// How a Lambda of the service is declared, beside what it serves: a route of
// the catalog (lib/http/route.ts), an integration of the registry
// (lib/provisioning/registry.ts) or another step of a state machine
// (statemachines/). infra/functions.ts makes the service's functions from these
// at package time.

/** The handler file, functions/<area>/[steps/]<key>.ts: its name is the function's key. */
export type HandlerFile = `functions/${string}.ts`;

export interface LambdaSpec {
  readonly handler: HandlerFile;
  /** Seconds; serverless.yml's provider timeout when unset. */
  readonly timeout?: number;
  /** MB; serverless.yml's provider memorySize when unset. */
  readonly memorySize?: number;
}

/** The function's key, from its handler file: functions/auth/me.ts → me. */
export const functionKeyOf = (handler: HandlerFile): string => handler.slice(handler.lastIndexOf('/') + 1, -'.ts'.length);
