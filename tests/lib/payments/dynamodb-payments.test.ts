// The DynamoDB adapters of payments against dynalite, and the webhook use case
// wired with them and the real Stripe adapter (signatures by the SDK's own
// helper): concurrency is decided by DynamoDB's conditional writes, not by luck.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { receiveAndApply } from './fakes.ts';
import { describe, expect, it } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbInvitations } from '../../../lib/accounts/dynamodb-invitations.ts';
import { dynamodbMemberships } from '../../../lib/accounts/dynamodb-memberships.ts';
import { DeliveryInProgress } from '../../../lib/deliveries/deliveries.ts';
import { dynamodbDeliveries } from '../../../lib/deliveries/dynamodb-deliveries.ts';
import { dynamodbBilling } from '../../../lib/payments/dynamodb-billing.ts';
import { stripeEvents } from '../../../lib/payments/stripe-events.ts';
import { dynamodbFollowUps } from '../../../lib/provisioning/follow-ups.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { capturedMetrics, recordingLogger } from '../../support/fakes.ts';

const d = useDynamo();
const stores = () => {
  const accounts = dynamodbAccounts({ db: d.db, tables: d.tables });
  const memberships = dynamodbMemberships({ db: d.db, tables: d.tables });
  return {
    accounts,
    memberships,
    team: { accounts, memberships, invitations: dynamodbInvitations({ db: d.db, tables: d.tables }), mailer: null, portalUrl: 'https://portal.test' },
    billing: dynamodbBilling({ db: d.db, tables: d.tables }),
    deliveries: dynamodbDeliveries({ db: d.db, tables: d.tables }),
    followUps: dynamodbFollowUps({ db: d.db, tables: d.tables, metrics: capturedMetrics().metrics }),
  };
};
const newAccount = async () => {
  const id = crypto.randomUUID();
  await stores().accounts.saveAccountDetails(id, { contact_email: `${id}@example.com` });
  return id;
};
const accountRow = async (id: string) => (await d.db.send(new GetCommand({ TableName: d.tables.accounts, Key: { id } }))).Item!;

describe('DynamoDB billing', () => {
  it('writes billing only over the version it was read at: of 20 concurrent writers exactly one lands', async () => {
    const { billing } = stores();
    const id = await newAccount();
    const current = (await billing.billingOf(id))!;
    expect(current).toEqual({ recentEvents: [], version: 0 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        billing.saveBilling(id, current.version, { plan: 'pro', customerId: 'cus_1', subscriptionId: 'sub_1', status: 'active', eventAt: 100 + i, recentEvents: [`evt_${i}`] }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = (await billing.billingOf(id))!;
    expect(after).toMatchObject({ plan: 'pro', customerId: 'cus_1', subscriptionId: 'sub_1', status: 'active', version: 1 });
    expect(await billing.saveBilling(id, 0, { recentEvents: [] })).toBe(false);
    expect(await billing.saveBilling(id, 1, { ...after, status: 'past_due' })).toBe(true);
    expect(await accountRow(id)).toMatchObject({ subscription_status: 'past_due', stripe_customer_id: 'cus_1', billing_version: 2 });
  });

  it('never creates an account by writing billing, and finds an account by its customer', async () => {
    const { billing } = stores();
    expect(await billing.billingOf('nope')).toBeUndefined();
    expect(await billing.saveBilling('nope', 0, { plan: 'pro', recentEvents: [] })).toBe(false);
    expect(await stores().accounts.getAccount('nope')).toBeUndefined();

    const id = await newAccount();
    const customer = `cus_${crypto.randomUUID()}`;
    expect(await billing.accountForCustomer(customer)).toBeUndefined();
    await billing.saveBilling(id, 0, { customerId: customer, recentEvents: [] });
    expect(await billing.accountForCustomer(customer)).toBe(id);
  });
});

describe('the payment webhook on DynamoDB', () => {
  const SECRET = 'whsec_test_secret';
  const payments = stripeEvents({ webhookSecret: SECRET, prices: { pro: 'price_pro' } });
  const deliver = (payload: string, signature?: string) =>
    receiveAndApply({ ...stores(), payments, log: recordingLogger() }, { rawBody: payload, signature: signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) });

  it('applies one event delivered 20 times at once exactly once', async () => {
    const id = await newAccount();
    const payload = JSON.stringify({
      id: `evt_${crypto.randomUUID()}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: { object: { object: 'checkout.session', mode: 'subscription', payment_status: 'paid', customer: 'cus_20', subscription: 'sub_20', client_reference_id: id, metadata: { account_id: id, plan: 'pro' } } },
    });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => deliver(payload)));
    // One applies it; a copy either found it at work (409 delivery_in_progress, which Stripe retries) or already done.
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'applied')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(DeliveryInProgress);
    for (const o of outcomes) if (o.status === 'fulfilled' && o.value !== 'applied') expect(o.value).toBe('already-processed');
    expect(await deliver(payload)).toBe('already-processed');
    expect(await accountRow(id)).toMatchObject({ plan: 'pro', stripe_customer_id: 'cus_20', subscription_id: 'sub_20', subscription_status: 'active', billing_version: 1 });
    // The delivery log's row, as the booking and membership webhooks' rows: the outcome, and the account the work found.
    const row = (await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: `stripe#${JSON.parse(payload).id}` } }))).Item!;
    expect(row).toMatchObject({ source: 'stripe', value: 'applied', finished_at: expect.any(String), account_id: id });
  });

  it('writes nothing for a delivery signed with another secret', async () => {
    const id = await newAccount();
    const payload = JSON.stringify({ id: `evt_${crypto.randomUUID()}`, type: 'invoice.paid', created: 1, data: { object: { customer: 'c', parent: { subscription_details: { subscription: 's', metadata: { account_id: id } } } } } });
    const before = await accountRow(id);
    await expect(deliver(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }))).rejects.toMatchObject({ code: 'invalid_signature' });
    expect(await accountRow(id)).toEqual(before);
    expect((await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: `stripe#${JSON.parse(payload).id}` } }))).Item).toBeUndefined();
  });
});
