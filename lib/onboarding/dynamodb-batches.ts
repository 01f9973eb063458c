// Batches in the onboarding_batches table: item "batch" holds the batch, items
// "row#<line>" (the line zero-padded, so they sort in line order) its rows.
import { BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { applied, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { BatchRecord, BatchRow, BatchStore } from './batches.ts';

const rowItem = (line: number) => `row#${String(line).padStart(6, '0')}`;

export function dynamodbBatches({ db, tables }: { db: DynamoDBDocumentClient; tables: Pick<Tables, 'onboarding_batches'> }): BatchStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/onboarding_batches:BatchWriteItem,GetItem,Query,UpdateItem';
  const TableName = tables.onboarding_batches;
  const rowsQuery = (batchId: string) => ({
    TableName,
    KeyConditionExpression: 'batch_id = :batch AND begins_with(#item, :row)',
    ExpressionAttributeNames: { '#item': 'item' },
    ExpressionAttributeValues: { ':batch': batchId, ':row': 'row#' },
    ConsistentRead: true,
  });
  const strip = ({ batch_id: _b, item: _i, ...rest }: Record<string, unknown>) => rest;

  return {
    async create(batch, rows) {
      const items = [{ ...batch, item: 'batch' }, ...rows.map((row) => ({ batch_id: batch.batch_id, item: rowItem(row.line), ...row }))];
      for (let i = 0; i < items.length; i += 25) {
        let requests: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
        // What DynamoDB leaves unprocessed is sent again, after a short pause.
        for (let round = 0; requests?.length; round++) {
          if (round === 8) throw new Error(`${requests.length} rows of batch ${batch.batch_id} could not be written`);
          if (round) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
          const res: BatchWriteCommandOutput = await db.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
          requests = res.UnprocessedItems?.[TableName];
        }
      }
    },

    async get(batchId) {
      const res = await db.send(new GetCommand({ TableName, Key: { batch_id: batchId, item: 'batch' }, ConsistentRead: true }));
      return res.Item && ({ ...strip(res.Item), batch_id: batchId } as BatchRecord);
    },

    async rows(batchId) {
      return (await queryAll<Record<string, unknown>>(db, rowsQuery(batchId))).map((item) => strip(item) as unknown as BatchRow);
    },

    async queued(batchId, limit) {
      const found: BatchRow[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            ...rowsQuery(batchId),
            FilterExpression: '#state = :queued',
            ExpressionAttributeNames: { '#item': 'item', '#state': 'state' },
            ExpressionAttributeValues: { ':batch': batchId, ':row': 'row#', ':queued': 'queued' },
            ExclusiveStartKey: start,
          }),
        );
        found.push(...(page.Items ?? []).map((item) => strip(item) as unknown as BatchRow));
        start = page.LastEvaluatedKey;
      } while (start && found.length < limit);
      return found.slice(0, limit);
    },

    async settle(batchId, line, outcome) {
      const fields = Object.entries(outcome).filter(([, v]) => v !== undefined);
      await applied(
        db.send(
          new UpdateCommand({
            TableName,
            Key: { batch_id: batchId, item: rowItem(line) },
            UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
            ConditionExpression: '#state = :queued',
            ExpressionAttributeNames: { ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])), '#state': 'state' },
            ExpressionAttributeValues: { ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])), ':queued': 'queued' },
          }),
        ),
      );
    },
  };
}
