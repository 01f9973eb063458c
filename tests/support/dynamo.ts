// dynalite in-process, with the tables of infra/dynamodb.yml, for adapter tests.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { parse } from 'yaml';
import { createTables, startDynamo, type LocalDynamo } from '../../local/dynamodb.ts';
import type { ResolvedService } from '../../local/serverless-config.ts';
import { createDocumentClient, tablesWithPrefix, type DynamoDBDocumentClient, type Tables } from '../../lib/store/dynamodb.ts';

export interface TestDynamo {
  /** dynalite's URL, for code that finds DynamoDB through AWS_ENDPOINT_URL_DYNAMODB. */
  endpoint: string;
  db: DynamoDBDocumentClient;
  client: DynamoDBClient;
  tables: Tables;
}

/** Starts dynalite for the file's tests, with the tables named `<prefix><table>`; the returned object is filled in before they run. */
export function useDynamo(prefix = 'test-'): TestDynamo {
  const ctx = {} as TestDynamo;
  let server: LocalDynamo;
  beforeAll(async () => {
    server = await startDynamo(0);
    const text = readFileSync('infra/dynamodb.yml', 'utf8').replaceAll('${self:service}-${sls:stage}-', prefix);
    const resources = (parse(text) as { Resources: ResolvedService['resources'] }).Resources;
    await createTables(server.endpoint, { service: 't', stage: 'test', region: 'eu-west-1', functions: {}, resources });
    ctx.endpoint = server.endpoint;
    ctx.client = new DynamoDBClient({ endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
    ctx.db = createDocumentClient(ctx.client);
    ctx.tables = tablesWithPrefix(prefix);
  });
  afterAll(async () => {
    ctx.client?.destroy();
    await server?.stop();
  });
  return ctx;
}
