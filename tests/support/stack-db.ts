// The running stack's DynamoDB tables, for tests that check what the service
// left behind (rows are read consistently: a test reads right after a write).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { stack } from './http.ts';

export const table = (name: string) => `agency-backend-local-${name}`;

let client: DynamoDBDocumentClient | undefined;
export const stackDb = () =>
  (client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: stack().urls.dynamodb, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }),
  ));

/** One row of a table, or undefined. */
export async function row(name: string, key: Record<string, unknown>): Promise<Record<string, any> | undefined> {
  return (await stackDb().send(new GetCommand({ TableName: table(name), Key: key, ConsistentRead: true }))).Item;
}

/** An account's member record of an address, or undefined. */
export const memberRecord = (accountId: string, email: string) => row('account_members', { account_id: accountId, email });

/** The member record of an address that has one in a single account (as most tests' addresses do), or undefined. */
export async function memberRecordOf(email: string): Promise<Record<string, any> | undefined> {
  const { Items = [] } = await stackDb().send(
    new QueryCommand({ TableName: table('account_members'), IndexName: 'byEmail', KeyConditionExpression: 'email = :email', ExpressionAttributeValues: { ':email': email } }),
  );
  if (Items.length > 1) throw new Error(`${email} has member records in ${Items.length} accounts`);
  return Items[0] && memberRecord(Items[0].account_id, email);
}

/** Every member record of an account. */
export async function memberRecordsOfAccount(accountId: string): Promise<Record<string, any>[]> {
  const { Items = [] } = await stackDb().send(
    new QueryCommand({ TableName: table('account_members'), KeyConditionExpression: 'account_id = :a', ExpressionAttributeValues: { ':a': accountId }, ConsistentRead: true }),
  );
  return Items;
}
