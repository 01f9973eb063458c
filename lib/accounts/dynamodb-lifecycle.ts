// The life cycle's writes (lifecycle.ts) on the accounts table, and on the
// member records for the storage link. Each is one conditional update.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountStatus } from './accounts.ts';
import { applied, queryAll, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import { ERASED_FIELDS, OPEN, type LifecycleStore } from './lifecycle.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'accounts' | 'account_members'>; now?: () => Date };

/** `#status IN (:s0, :s1, ...)` and its values. */
function statusIn(statuses: readonly AccountStatus[]) {
  const values = Object.fromEntries(statuses.map((s, i) => [`:s${i}`, s]));
  return { expression: `#status IN (${Object.keys(values).join(', ')})`, values };
}

export function dynamodbLifecycle({ db, tables, now = () => new Date() }: Deps): LifecycleStore {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/accounts:UpdateItem';
  'iam:dynamodb:table/account_members:Query,UpdateItem';
  const TableName = tables.accounts;
  const open = statusIn(OPEN);
  const update = (
    Key: Record<string, unknown>,
    input: { set: string; condition: string; values: Record<string, unknown>; names?: Record<string, string>; table?: string },
  ) => {
    const names = { ...(input.condition.includes('#status') || input.set.includes('#status') ? { '#status': 'status' } : {}), ...input.names };
    return applied(
      db.send(
        new UpdateCommand({
          TableName: input.table ?? TableName,
          Key,
          UpdateExpression: input.set,
          ConditionExpression: input.condition,
          // DynamoDB refuses an empty map.
          ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
          ExpressionAttributeValues: input.values,
        }),
      ),
    );
  };
  // Attribute names as placeholders: some (location, name, ...) are DynamoDB's reserved words.
  const named = (fields: readonly string[]) => Object.fromEntries(fields.map((f, i) => [`#f${i}`, f]));

  return {
    schedule: (accountId, offboarding, replacing) =>
      update(
        { id: accountId },
        {
          set: 'SET offboarding = :o, updated_at = :now',
          condition: `attribute_exists(id) AND ${open.expression} AND (attribute_not_exists(offboarding) OR offboarding.run_id = :same${replacing ? ' OR offboarding.run_id = :replacing' : ''})`,
          values: { ':o': offboarding, ':now': now().toISOString(), ':same': offboarding.run_id, ...open.values, ...(replacing ? { ':replacing': replacing } : {}) },
        },
      ),

    unschedule: (accountId, runId) =>
      update(
        { id: accountId },
        {
          set: 'REMOVE offboarding SET updated_at = :now',
          condition: `attribute_exists(id) AND ${open.expression} AND offboarding.run_id = :run`,
          values: { ':run': runId, ':now': now().toISOString(), ...open.values },
        },
      ),

    async begin(accountId, runId) {
      const moved = await update(
        { id: accountId },
        {
          set: 'SET #status = :offboarding, updated_at = :now',
          condition: `attribute_exists(id) AND offboarding.run_id = :run AND (${open.expression} OR #status = :offboarding)`,
          values: { ':offboarding': 'offboarding', ':run': runId, ':now': now().toISOString(), ...open.values },
        },
      );
      return moved;
    },

    transition(accountId, from, to, set = {}) {
      const allowed = statusIn(from);
      const extra = Object.entries(set).filter(([, v]) => v !== undefined);
      const names = named(extra.map(([k]) => k));
      return update(
        { id: accountId },
        {
          set: `SET #status = :to, updated_at = :now${Object.keys(names).map((n, i) => `, ${n} = :x${i}`).join('')}`,
          condition: `attribute_exists(id) AND ${allowed.expression}`,
          names,
          values: { ':to': to, ':now': now().toISOString(), ...allowed.values, ...Object.fromEntries(extra.map(([, v], i) => [`:x${i}`, v])) },
        },
      );
    },

    reopen: (accountId, by, at, to) =>
      update(
        { id: accountId },
        {
          set: 'SET #status = :to, reopened_at = :at, reopened_by = :by, updated_at = :at REMOVE closed_at, offboarding',
          condition: 'attribute_exists(id) AND #status = :closed',
          values: { ':to': to, ':closed': 'closed', ':at': at.toISOString(), ':by': by },
        },
      ),

    async noteErasure(accountId, record) {
      await update({ id: accountId }, { set: 'SET erasure = :e, updated_at = :now', condition: '#status = :closed', values: { ':e': record, ':closed': 'closed', ':now': now().toISOString() } });
    },

    erase: (accountId, record) =>
      update(
        { id: accountId },
        {
          set: `SET #status = :erased, erasure = :e, updated_at = :now REMOVE ${Object.keys(named(ERASED_FIELDS)).join(', ')}`,
          names: named(ERASED_FIELDS),
          condition: '#status = :closed',
          values: { ':erased': 'erased', ':closed': 'closed', ':e': record, ':now': now().toISOString() },
        },
      ),

    async forgetStorageLink(accountId) {
      await update({ id: accountId }, { set: 'REMOVE storage_link SET updated_at = :now', condition: 'attribute_exists(id)', values: { ':now': now().toISOString() } });
      const members = await queryAll<{ email: string }>(db, {
        TableName: tables.account_members,
        KeyConditionExpression: 'account_id = :id',
        ExpressionAttributeValues: { ':id': accountId },
        ConsistentRead: true,
      });
      for (const member of members) {
        await update(
          { account_id: accountId, email: member.email },
          { table: tables.account_members, set: 'REMOVE storage_link SET updated_at = :now', condition: 'attribute_exists(email)', values: { ':now': now().toISOString() } },
        );
      }
    },
  };
}
