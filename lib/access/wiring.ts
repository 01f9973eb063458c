// The access guard of the HTTP functions whose routes need to know the caller,
// built from configuration once per Lambda instance; its identity client and
// membership store are made on the first request that carries credentials.
import { dynamodbMemberships } from '../accounts/dynamodb-memberships.ts';
import { config } from '../config.ts';
import { supabaseIdentity } from '../identity/supabase-identity.ts';
import { interactivePolicyFrom } from '../integrations/http-client.ts';
import { db, tables } from '../store/dynamodb.ts';
import { accessGuard } from './guard.ts';

export const guard = accessGuard(() => ({
  identity: supabaseIdentity(config.identity, interactivePolicyFrom(config.vendors)),
  memberships: dynamodbMemberships({ db, tables }),
  keys: config.access,
}));
