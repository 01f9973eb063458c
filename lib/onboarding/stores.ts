// The DynamoDB-backed ports of onboarding, created once per Lambda instance.
import { dynamodbAccounts, dynamodbSlugs } from '../accounts/dynamodb-accounts.ts';
import { dynamodbIntegrations } from '../accounts/integrations.ts';
import { metrics } from '../metrics.ts';
import { dynamodbLedger } from '../provisioning/dynamodb-ledger.ts';
import { dynamodbFollowUps } from '../provisioning/follow-ups.ts';
import { db, tables } from '../store/dynamodb.ts';
import { dynamodbRuns } from './runs.ts';

export const stores = {
  accounts: dynamodbAccounts({ db, tables }),
  slugs: dynamodbSlugs({ db, tables }),
  integrations: dynamodbIntegrations({ db, tables }),
  runs: dynamodbRuns({ db, tables }),
  ledger: dynamodbLedger({ db, tables }),
  followUps: dynamodbFollowUps({ db, tables, metrics }),
};
