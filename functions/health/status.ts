import { integrationSettings, onboardingStateMachineArn } from '../../lib/config.ts';
import { statusChecks } from '../../lib/health/probes.ts';
import { healthRoutes } from '../../lib/health/routes.ts';
import { checkStatus } from '../../lib/health/status.ts';
import { httpEndpoint, json } from '../../lib/http/endpoint.ts';
import { dynamodb, tables } from '../../lib/store/dynamodb.ts';
import { createStepFunctionsClient } from '../../lib/workflows/step-functions.ts';

const checks = statusChecks(integrationSettings(), {
  dynamodb,
  sfn: createStepFunctionsClient(),
  accountsTable: tables.accounts,
  stateMachineArn: onboardingStateMachineArn(),
});

export const handler = httpEndpoint(healthRoutes.status, async () => json(200, await checkStatus(checks)));
