// The DynamoDB-backed ports of onboarding, created once per Lambda instance.
import { dynamodbAccounts, dynamodbSlugs } from '../accounts/dynamodb-accounts.ts';
import { dynamodbIntegrations } from '../accounts/integrations.ts';
import { config } from '../config.ts';
import { policyFrom } from '../integrations/http-client.ts';
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
  followUps: dynamodbFollowUps({ db, tables }),
};

/** How hard a step tries a vendor before the state machine's own retry takes over. */
export const vendorPolicy = policyFrom(config.vendors);
