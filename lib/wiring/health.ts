// What /status probes: the service's own DynamoDB and Step Functions, and each configured vendor.
import { integrationSettings, onboardingStateMachineArn } from '../config.ts';
import { statusChecks } from '../health/probes.ts';
import type { StatusDeps } from '../health/status.ts';
import { dynamodb, tables } from '../store/dynamodb.ts';
import { kept } from './lazy.ts';
import { stepFunctions } from './workflows.ts';

export const statusDeps = (): StatusDeps =>
  kept('statusDeps', () => {
    // What the probes send, for the function's IAM role (infra/roles-per-function.mjs).
    'iam:dynamodb:table/accounts:DescribeTable';
    'iam:states:stateMachine/onboarding:DescribeStateMachine';
    return statusChecks(integrationSettings(), {
      dynamodb,
      sfn: stepFunctions(),
      accountsTable: tables.accounts,
      stateMachineArn: onboardingStateMachineArn(),
    });
  });
