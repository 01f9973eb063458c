// The local stack's tables: data kept from before a new index was added to a
// table's definition is carried over into the table rebuilt with that index.
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, startDynamo, type LocalDynamo } from '../../local/dynamodb.ts';
import type { ResolvedService } from '../../local/serverless-config.ts';
import { createDocumentClient } from '../../lib/store/dynamodb.ts';

let server: LocalDynamo;
let client: DynamoDBClient;
beforeAll(async () => {
  server = await startDynamo(0);
  client = new DynamoDBClient({ endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

const service = (withIndex: boolean): ResolvedService => ({
  service: 's',
  stage: 'local',
  region: 'eu-west-1',
  functions: {},
  resources: {
    AccountsTable: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        TableName: 'kept-accounts',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, ...(withIndex ? [{ AttributeName: 'customer', AttributeType: 'S' }] : [])],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        ...(withIndex ? { GlobalSecondaryIndexes: [{ IndexName: 'byCustomer', KeySchema: [{ AttributeName: 'customer', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }] } : {}),
      },
    },
  },
});

describe('local tables', () => {
  it('creates missing tables once, and rebuilds a kept table with a new index, keeping its items', async () => {
    expect(await createTables(server.endpoint, service(false))).toEqual(['kept-accounts']);
    const db = createDocumentClient(client);
    for (let i = 0; i < 60; i++) await db.send(new PutCommand({ TableName: 'kept-accounts', Item: { id: `a${i}`, customer: `cus_${i}`, n: i } }));
    expect(await createTables(server.endpoint, service(false))).toEqual([]);

    expect(await createTables(server.endpoint, service(true))).toEqual(['kept-accounts (rebuilt with its data for the new index byCustomer)']);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'kept-accounts' }));
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byCustomer']);
    expect((await db.send(new GetCommand({ TableName: 'kept-accounts', Key: { id: 'a59' } }))).Item).toEqual({ id: 'a59', customer: 'cus_59', n: 59 });
    const byCustomer = await db.send(
      new QueryCommand({ TableName: 'kept-accounts', IndexName: 'byCustomer', KeyConditionExpression: 'customer = :c', ExpressionAttributeValues: { ':c': 'cus_7' } }),
    );
    expect(byCustomer.Items).toEqual([{ id: 'a7', customer: 'cus_7' }]);
    expect(await createTables(server.endpoint, service(true))).toEqual([]);
  });
});
