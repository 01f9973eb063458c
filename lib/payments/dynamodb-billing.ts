// Billing lives on the account row (contract names: plan, stripe_customer_id,
// subscription_id, subscription_status) with what keeps its writes safe:
// billing_version (compare-and-set), billing_event_at and billing_events (see
// billing.ts). The accounts GSI byStripeCustomer finds an account by customer.
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account } from '../accounts/accounts.ts';
import { applied, type DynamoDBDocumentClient, type Tables } from '../store/dynamodb.ts';
import type { Billing, BillingStore } from './billing.ts';

type Deps = { db: DynamoDBDocumentClient; tables: Pick<Tables, 'accounts'>; now?: () => Date };

export const CUSTOMER_INDEX = 'byStripeCustomer';

const FIELDS: [keyof Billing, keyof Account][] = [
  ['plan', 'plan'],
  ['customerId', 'stripe_customer_id'],
  ['subscriptionId', 'subscription_id'],
  ['status', 'subscription_status'],
  ['eventAt', 'billing_event_at'],
  ['recentEvents', 'billing_events'],
];

/** What reading an account's billing takes (the billing portal's): a function given only this can change none. */
export type BillingReader = Pick<BillingStore, 'billingOf'>;

export function dynamodbBillingReader({ db, tables }: Pick<Deps, 'db' | 'tables'>): BillingReader {
  // What it sends, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/accounts:GetItem';
  return {
    async billingOf(accountId) {
      const { Item } = await db.send(new GetCommand({ TableName: tables.accounts, Key: { id: accountId }, ConsistentRead: true }));
      if (!Item) return undefined;
      const account = Item as Account;
      return {
        plan: account.plan,
        customerId: account.stripe_customer_id,
        subscriptionId: account.subscription_id,
        status: account.subscription_status,
        eventAt: account.billing_event_at,
        recentEvents: account.billing_events ?? [],
        version: account.billing_version ?? 0,
      };
    },
  };
}

export function dynamodbBilling({ db, tables, now = () => new Date() }: Deps): BillingStore {
  // What it sends besides the reader's, for its function's IAM role (infra/roles-per-function.mjs).
  'iam:dynamodb:table/accounts:UpdateItem';
  'iam:dynamodb:table/accounts/index/byStripeCustomer:Query';
  return {
    ...dynamodbBillingReader({ db, tables }),

    async saveBilling(accountId, expectedVersion, next) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':next': expectedVersion + 1, ':now': now().toISOString() };
      const sets = ['billing_version = :next', 'updated_at = :now'];
      for (const [field, attribute] of FIELDS) {
        if (next[field] === undefined) continue;
        names[`#${attribute}`] = attribute;
        values[`:${attribute}`] = next[field];
        sets.push(`#${attribute} = :${attribute}`);
      }
      if (expectedVersion > 0) values[':expected'] = expectedVersion;
      return applied(
        db.send(
          new UpdateCommand({
            TableName: tables.accounts,
            Key: { id: accountId },
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression:
              expectedVersion > 0 ? 'billing_version = :expected' : 'attribute_exists(id) AND attribute_not_exists(billing_version)',
            ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
            ExpressionAttributeValues: values,
          }),
        ),
      );
    },

    async accountForCustomer(customerId) {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tables.accounts,
          IndexName: CUSTOMER_INDEX,
          KeyConditionExpression: 'stripe_customer_id = :customer',
          ExpressionAttributeValues: { ':customer': customerId },
          Limit: 1,
        }),
      );
      return Items?.[0]?.id as string | undefined;
    },
  };
}
