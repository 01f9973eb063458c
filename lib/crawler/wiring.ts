// What the crawler's HTTP functions share, created once per Lambda instance.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { config, ConfigError } from '../config.ts';
import { sfnWorkflow } from '../onboarding/workflow.ts';
import { db, tables } from '../store/dynamodb.ts';
import { sfn } from '../workflows/step-functions.ts';
import { crawlRecords } from './stores.ts';

export const crawlerDeps = { ...crawlRecords, accounts: dynamodbAccounts({ db, tables }) };

export function refreshWorkflow() {
  const arn = config.workflows.crawlerRefreshArn;
  if (!arn) throw new ConfigError('Invalid configuration: CRAWLER_REFRESH_STATE_MACHINE_ARN is required');
  return sfnWorkflow(sfn, arn);
}
