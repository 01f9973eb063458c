// The service's functions, made at package time from what declares them: each
// route of the catalog (lib/api/catalog.ts) gives its function and httpApi
// event; each integration of the registry (lib/provisioning/registry.ts) and
// each other step declared beside its state machine (statemachines/) gives a
// step function. serverless.yml takes them through infra/functions.cjs and
// declares only what none of these does (the catch-all not-found function).
// The house rule holds by construction: the function's key is its handler
// file's name, and its handler is that file's `handler` export.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { catalog, type DeployedRoute } from '../lib/api/catalog.ts';
import { functionKeyOf, type LambdaSpec } from '../lib/lambda-spec.ts';
import { integrations, type IntegrationSpec } from '../lib/provisioning/registry.ts';
import { bookingSteps } from '../statemachines/booking.ts';
import { crawlerRefreshSteps } from '../statemachines/crawler-refresh.ts';
import { onboardingBatchSteps } from '../statemachines/onboarding-batch.ts';
import { workflowSteps } from '../statemachines/workflows.ts';
import { paymentsSteps } from '../statemachines/payments.ts';

export type HttpApiEvent = { httpApi: { method: string; path: string } | '*' };

/** A function as serverless.yml declares it. */
export interface ServerlessFunction {
  handler: string;
  events?: HttpApiEvent[];
  timeout?: number;
  memorySize?: number;
}

/** Every step a state machine invokes: the registry's integrations (provisioning, then taking back), then the machines' own steps. */
export const stepsOf = (registry: Readonly<Record<string, Pick<IntegrationSpec, 'lambda' | 'takeBack'>>>): readonly LambdaSpec[] => [
  ...Object.values(registry).map((integration) => integration.lambda),
  ...Object.values(registry).flatMap((integration) => (integration.takeBack ? [integration.takeBack.lambda] : [])),
  ...workflowSteps,
  ...onboardingBatchSteps,
  ...crawlerRefreshSteps,
  ...bookingSteps,
  ...paymentsSteps,
];

export const steps = stepsOf(integrations);

const functionOf = ({ handler, timeout, memorySize }: LambdaSpec): ServerlessFunction => ({
  handler: `${handler.slice(0, -'.ts'.length)}.handler`,
  ...(timeout === undefined ? {} : { timeout }),
  ...(memorySize === undefined ? {} : { memorySize }),
});

/** The functions serving these routes and invoked as these steps, by key; two declarations of one key are an error. */
export function functionsFrom(routes: readonly DeployedRoute[], stepLambdas: readonly LambdaSpec[]): Record<string, ServerlessFunction> {
  const functions: Record<string, ServerlessFunction> = {};
  const declare = (lambda: LambdaSpec, events: HttpApiEvent[], what: string) => {
    const key = functionKeyOf(lambda.handler);
    if (functions[key]) throw new Error(`infra/functions.ts: ${what} declares the function ${key}, which is declared already`);
    functions[key] = { ...functionOf(lambda), ...(events.length ? { events } : {}) };
  };
  for (const route of routes) declare(route.lambda, [{ httpApi: { method: route.method, path: route.path } }], `the route ${route.method} ${route.path}`);
  for (const step of stepLambdas) declare(step, [], `the step ${step.handler}`);
  return functions;
}

/** What serverless.yml gets: `${file(./infra/functions.cjs):functions}`. */
export const functions = functionsFrom(catalog, steps);

/**
 * Every function of the service: these and those serverless.yml declares itself
 * (its `functions` list, whose other entries are the ${file(...)} of this module).
 */
export function serviceFunctions(serverlessYml = readFileSync(new URL('../serverless.yml', import.meta.url), 'utf8')): Record<string, ServerlessFunction> {
  const listed = (parse(serverlessYml, { logLevel: 'silent' }) as { functions: unknown }).functions;
  const own = [listed].flat().filter((entry): entry is Record<string, ServerlessFunction> => typeof entry === 'object' && entry !== null);
  return Object.assign({}, functions, ...own);
}
