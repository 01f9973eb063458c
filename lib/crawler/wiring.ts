// What the crawler's HTTP functions share, created once per Lambda instance.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { db, tables } from '../store/dynamodb.ts';
import { crawlRecords } from './stores.ts';

export { crawlerRefreshWorkflow as refreshWorkflow } from '../adapters.ts';

export const crawlerDeps = { ...crawlRecords, accounts: dynamodbAccounts({ db, tables }) };
