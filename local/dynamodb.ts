// DynamoDB for the local stack: dynalite, with the tables of serverless.yml.
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ScanCommand,
  type AttributeValue,
  type BatchWriteItemCommandOutput,
  type CreateTableCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { resourcesOfType, type ResolvedService } from './serverless-config.ts';

export interface LocalDynamo {
  endpoint: string;
  /** How many requests it has answered (the bench counts DynamoDB calls with it). */
  requests(): number;
  stop(): Promise<void>;
}

/** Starts dynalite; with `path` its data survives restarts. */
export async function startDynamo(port: number, path?: string): Promise<LocalDynamo> {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  let requests = 0;
  server.on('request', () => void requests++);
  return {
    endpoint: `http://127.0.0.1:${actual}`,
    requests: () => requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Creates every AWS::DynamoDB::Table of the service that does not exist yet,
 * and rebuilds one whose definition gained a global secondary index since its
 * data was kept (dynalite cannot add an index to a table; DynamoDB can, which is
 * what a deployment does). Answers the tables it created or rebuilt.
 */
export async function createTables(endpoint: string, svc: ResolvedService): Promise<string[]> {
  const client = new DynamoDBClient({ endpoint, region: svc.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    const created: string[] = [];
    for (const [, resource] of resourcesOfType(svc, 'AWS::DynamoDB::Table')) {
      const p = resource.Properties as unknown as CreateTableCommandInput & Record<string, unknown>;
      // dynalite has no TTL, PITR or tags: create only what defines the data's shape.
      const definition: CreateTableCommandInput = {
        TableName: p.TableName,
        AttributeDefinitions: p.AttributeDefinitions,
        KeySchema: p.KeySchema,
        GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
        BillingMode: 'PAY_PER_REQUEST',
      };
      if (!existing.has(p.TableName!)) {
        await client.send(new CreateTableCommand(definition));
        created.push(p.TableName!);
        continue;
      }
      const { Table } = await client.send(new DescribeTableCommand({ TableName: p.TableName }));
      const indexes = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
      const added = (p.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName!).filter((name) => !indexes.has(name));
      if (added.length === 0) continue;
      await rebuildTable(client, definition);
      created.push(`${p.TableName} (rebuilt with its data for the new index ${added.join(', ')})`);
    }
    return created;
  } finally {
    client.destroy();
  }
}

async function rebuildTable(client: DynamoDBClient, definition: CreateTableCommandInput): Promise<void> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: definition.TableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  await client.send(new DeleteTableCommand({ TableName: definition.TableName }));
  await client.send(new CreateTableCommand(definition));
  for (let i = 0; i < items.length; i += 25) {
    let writes: WriteRequest[] | undefined = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (writes?.length) {
      const answer: BatchWriteItemCommandOutput = await client.send(new BatchWriteItemCommand({ RequestItems: { [definition.TableName!]: writes } }));
      writes = answer.UnprocessedItems?.[definition.TableName!];
    }
  }
}
