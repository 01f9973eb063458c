// Every state machine of the service, and what CloudFormation needs for each:
// its definition, the substitutions that turn its ${<Step>Arn} placeholders
// into the step Lambdas' ARNs, and the functions its role may invoke (the
// same list: nothing else). serverless.yml takes them through
// infra/state-machines.cjs; the local stack reads them back with `sls print`.
import { bookingMachine } from './booking.ts';
import { crawlerRefreshMachine } from './crawler-refresh.ts';
import { placeholdersIn, stepOfPlaceholder, type Machine } from './asl.ts';
import { onboardingBatchMachine } from './onboarding-batch.ts';
import { workflowMachines } from './workflows.ts';
import { paymentsMachine } from './payments.ts';

/** By the name each is deployed under: agency-backend-<stage>-<name>. */
export const stateMachines = {
  ...workflowMachines,
  'onboarding-batch': onboardingBatchMachine,
  booking: bookingMachine,
  payments: paymentsMachine,
  'crawler-refresh': crawlerRefreshMachine,
};

export type MachineName = keyof typeof stateMachines;

/** The CloudFormation logical id Serverless gives a function, e.g. assign-slug → AssignDashslugLambdaFunction. */
export const functionLogicalId = (key: string) =>
  `${key.charAt(0).toUpperCase()}${key.slice(1).replace(/-/g, 'Dash').replace(/_/g, 'Underscore')}LambdaFunction`;

export interface MachineTemplate {
  definition: Machine;
  substitutions: Record<string, { 'Fn::GetAtt': [string, 'Arn'] }>;
  invokes: { 'Fn::GetAtt': [string, 'Arn'] }[];
}

export function templateOf(definition: Machine): MachineTemplate {
  const substitutions = Object.fromEntries(
    placeholdersIn(definition).map((p) => [p, { 'Fn::GetAtt': [functionLogicalId(stepOfPlaceholder(p)), 'Arn'] as [string, 'Arn'] }]),
  );
  return { definition, substitutions, invokes: Object.values(substitutions) };
}

export const templates = Object.fromEntries(Object.entries(stateMachines).map(([name, machine]) => [name, templateOf(machine)])) as Record<MachineName, MachineTemplate>;
