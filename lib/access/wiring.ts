// The access guard of the HTTP functions whose routes need to know the caller,
// built once per Lambda instance; its identity client and membership store are
// made on the first request that carries credentials, and supabase-js is
// loaded only when that request carries a bearer token (../adapters.ts).
import { dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { identity } from '../adapters.ts';
import { adminApiKey, internalApiKey } from '../config.ts';
import { db, tables } from '../store/dynamodb.ts';
import { accessGuard } from './guard.ts';

export const guard = accessGuard(() => ({
  identity: identity(),
  memberships: dynamodbMemberships({ db, tables }),
  keys: { internalApiKey: internalApiKey(), adminApiKey: adminApiKey() },
}));
