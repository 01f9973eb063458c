// DynamoDB for the local stack: dynalite, with the tables of serverless.yml.
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { resourcesOfType, type ResolvedService } from './serverless-config.ts';

export interface LocalDynamo {
  endpoint: string;
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
  return {
    endpoint: `http://127.0.0.1:${actual}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Creates every AWS::DynamoDB::Table of the service that does not exist yet. */
export async function createTables(endpoint: string, svc: ResolvedService): Promise<string[]> {
  const client = new DynamoDBClient({ endpoint, region: svc.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    const created: string[] = [];
    for (const [, resource] of resourcesOfType(svc, 'AWS::DynamoDB::Table')) {
      const p = resource.Properties as unknown as CreateTableCommandInput & Record<string, unknown>;
      if (existing.has(p.TableName!)) continue;
      // dynalite has no TTL, PITR or tags: create only what defines the data's shape.
      await client.send(
        new CreateTableCommand({
          TableName: p.TableName,
          AttributeDefinitions: p.AttributeDefinitions,
          KeySchema: p.KeySchema,
          GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      created.push(p.TableName!);
    }
    return created;
  } finally {
    client.destroy();
  }
}
