// The DynamoDB of the stage an operator's script works on: for `local`, the
// local stack's (AWS_ENDPOINT_URL_DYNAMODB, else npm start's port 8000, with
// its local keys); for any other stage, AWS in the given region with the
// shell's credentials.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, tablesWithPrefix } from '../lib/store/dynamodb.ts';
import { LOCAL_STACK } from './command-line.ts';
import { stagePrefix } from './stage-env.ts';

export function stageDynamo(stage: string, region: string) {
  const local = stage === 'local';
  const db = createDocumentClient(
    new DynamoDBClient({
      region,
      ...(local ? { endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? LOCAL_STACK.dynamodb, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    }),
  );
  const prefix = stagePrefix(stage);
  return { db, prefix, tables: tablesWithPrefix(prefix) };
}
