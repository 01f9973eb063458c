// What the crawler's HTTP functions share, created once per Lambda instance.
import { dynamodbAccounts } from '../accounts/dynamodb-accounts.ts';
import { identity } from '../adapters.ts';
import { adminApiKey } from '../config.ts';
import { db, tables } from '../store/dynamodb.ts';
import type { AdminAccessDeps } from './access.ts';
import { crawlRecords } from './stores.ts';

export { crawlerRefreshWorkflow } from '../adapters.ts';

export const adminAccess = (): AdminAccessDeps => ({ identity: identity(), adminApiKey: adminApiKey() });

export const crawlerDeps = () => ({ ...crawlRecords, accounts: dynamodbAccounts({ db, tables }) });
