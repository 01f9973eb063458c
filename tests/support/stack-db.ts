// The running stack's DynamoDB tables, for tests that check what the service
// left behind (rows are read consistently: a test reads right after a write).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
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
