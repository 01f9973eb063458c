// Checkout and the payment webhook over HTTP on the local stack, with the
// Stripe emulator's hosted page driven as a browser drives it, and webhook
// fixtures signed with the stripe SDK's own test-header helper.
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { paymentJobName } from '../../lib/payments/payment-queue.ts';
import { api, errorCode, injectFault, recorded, stack } from '../support/http.ts';
import { memberRecordOf, row, stackDb, table } from '../support/stack-db.ts';
import {
  accountRow,
  clearOfCheckoutBucketEdge,
  deliverPayment as deliver,
  emulatorEvent,
  PAYMENTS_MACHINE,
  payOnHostedPage,
  paymentEventRow as eventRow,
  purchase,
  signStripe as sign,
} from '../support/payments.ts';
import { bearer, client, logIn, newEmail, signedInUser, verifiedUser } from '../support/users.ts';
import { copyAnswer, stackSfn } from '../support/webhooks.ts';

const dashboard = () => stack().env.DASHBOARD_URL!;

describe('GET /api/checkout', () => {
  it('sends a caller without a valid token to the signup page with this request URL-encoded, for pro, an empty and an unknown plan', async () => {
    for (const query of ['?plan=pro', '?plan=', '?plan=bogus']) {
      const signup = `${dashboard()}/signup?redirect=${encodeURIComponent(`${stack().urls.api}/api/checkout${query}`)}`;
      const variants: Record<string, string>[] = [{}, bearer('not.a.token'), { host: 'evil.example', 'x-forwarded-host': 'evil.example' }];
      for (const headers of variants) {
        const res = await api(`/api/checkout${query}`, { headers });
        expect(res.status, `${query} ${JSON.stringify(headers)}`).toBe(302);
        expect(res.headers.get('location')).toBe(signup);
      }
    }
  });

  it("sends a signed-in user to the emulator's hosted page (one session per double click); paying there leaves the account active on the plan", async () => {
    const user = await signedInUser();
    await clearOfCheckoutBucketEdge();
    const [first, second] = await Promise.all([
      user.client.get('/api/checkout?plan=pro', bearer(user.accessToken)),
      user.client.get('/api/checkout?plan=pro', bearer(user.accessToken)),
    ]);
    expect(first.status).toBe(303);
    const hosted = first.headers.get('location')!;
    expect(hosted).toMatch(new RegExp(`^${stack().urls.emulators}/stripe/pay/cs_test_[A-Za-z0-9]+$`));
    expect(second.headers.get('location')).toBe(hosted);
    const sessionId = hosted.split('/').pop()!;

    // The account exists (with this user as its owner) before anything is paid, and the session is tied to it.
    const member = (await memberRecordOf(user.email))!;
    expect(member).toMatchObject({ role: 'owner', user_id: user.user.id });
    const session = (await recorded<any[]>('payments')).find((s) => s.id === sessionId);
    expect(session).toMatchObject({
      mode: 'subscription',
      status: 'open',
      client_reference_id: member.account_id,
      customer_email: user.email,
      metadata: { account_id: member.account_id, user_id: user.user.id, email: user.email, plan: 'pro' },
      success_url: `${dashboard()}/?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      line_items: [{ price: stack().env.STRIPE_PRICE_PRO, quantity: 1 }],
    });

    const paid = await payOnHostedPage(hosted);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${dashboard()}/?checkout=success&session_id=${sessionId}`);

    const account = await accountRow(member.account_id);
    expect(account).toMatchObject({
      plan: 'pro',
      subscription_status: 'active',
      subscription_id: expect.stringMatching(/^sub_/),
      stripe_customer_id: expect.stringMatching(/^cus_/),
    });
    // In whatever order the emulator sent them (Stripe promises none), each once or twice: all acknowledged, each applied once.
    const deliveries = (await recorded<any[]>('payments')).find((s) => s.id === sessionId).deliveries;
    expect(new Set(deliveries.map((d: any) => d.event.type))).toEqual(new Set(['checkout.session.completed', 'invoice.paid', 'customer.subscription.updated']));
    for (const d of deliveries) expect([d.status, d.answer]).toEqual([200, { received: true }]);
    for (const d of deliveries) expect(await eventRow(d.event.id)).toMatchObject({ value: 'applied', account_id: member.account_id });

    // Coming back for another plan: the customer Stripe knows is reused.
    const upgrade = await user.client.get('/api/checkout?plan=enterprise', bearer(user.accessToken));
    const again = (await recorded<any[]>('payments')).find((s) => s.id === upgrade.headers.get('location')!.split('/').pop());
    expect(again).toMatchObject({ customer: account.stripe_customer_id, customer_email: null });
  });

  it('answers a signed-in user 400 for an unknown or missing plan, and records free without payment', async () => {
    const user = await signedInUser();
    for (const query of ['?plan=bogus', '?plan=', '']) {
      const res = await user.client.get(`/api/checkout${query}`, bearer(user.accessToken));
      expect(res.status, query).toBe(400);
      expect(errorCode(res)).toBe('invalid_plan');
    }
    const free = await user.client.get('/api/checkout?plan=free', bearer(user.accessToken));
    expect(free.status).toBe(303);
    expect(free.headers.get('location')).toBe(`${dashboard()}/dashboard`);
    expect(await accountRow((await memberRecordOf(user.email))!.account_id)).toMatchObject({ plan: 'free' });
  });
});

describe('POST /api/checkout/session', () => {
  it('answers 400 for a bad e-mail or an unknown plan', async () => {
    const badEmail = await api('/api/checkout/session', { body: { planId: 'pro', email: 'not-an-email' } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.details).toEqual([{ path: '/body/email', message: 'must match format "email"' }]);
    for (const planId of ['bogus', 'free', '']) {
      const badPlan = await api('/api/checkout/session', { body: { planId, email: newEmail() } });
      expect(badPlan.status, planId).toBe(400);
      expect(errorCode(badPlan)).toBe('invalid_request');
    }
  });

  it('applies a purchase whatever the order its events arrive in, duplicates included', async () => {
    const orders = [
      'checkout.session.completed,invoice.paid,customer.subscription.updated',
      'customer.subscription.updated,invoice.paid,checkout.session.completed',
      'invoice.paid,customer.subscription.updated,invoice.paid,checkout.session.completed,customer.subscription.updated',
    ];
    for (const order of orders) {
      const { accountId, customer, subscription } = await purchase('pro', order);
      expect(await accountRow(accountId), order).toMatchObject({ plan: 'pro', subscription_status: 'active', stripe_customer_id: customer, subscription_id: subscription });
      expect(customer).toMatch(/^cus_/);
      expect(subscription).toMatch(/^sub_/);
    }
  });

  it("answers { url } of the hosted page; paying for an address that owns no account gives the purchase an account, and the buyer an invitation to own it", async () => {
    const email = newEmail();
    const res = await api('/api/checkout/session', { body: { planId: 'starter', email } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: expect.stringMatching(new RegExp(`^${stack().urls.emulators}/stripe/pay/cs_test_`)) });

    expect((await payOnHostedPage(res.body.url)).status).toBe(303);
    const invited = await stackDb().send(
      new QueryCommand({ TableName: table('invitations'), IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': email } }),
    );
    expect(invited.Items).toEqual([expect.objectContaining({ role: 'owner', status: 'pending', invited_by: { kind: 'checkout' } })]);
    expect(await accountRow(invited.Items![0]!.account_id)).toMatchObject({ plan: 'starter', subscription_status: 'active', contact_email: email });
    // Nobody is a member of it until the buyer accepts, signed in with that address verified.
    expect(await memberRecordOf(email)).toBeUndefined();
  });

  it('answers { url } after Stripe failed in execution, a 500 it replays to every retry with the key; a second click gets the same session', async () => {
    const email = newEmail();
    // Both clicks wait out stripe-node's retries of the saved 500 (backoff): more room before the key's minute ends.
    await clearOfCheckoutBucketEdge(25_000);
    // The checkout's parameters carry the buyer's address; the fault takes the first request with it.
    await injectFault({ vendor: 'stripe', mode: 'fail-in-execution', count: 1, match: encodeURIComponent(email) });
    const res = await api('/api/checkout/session', { body: { planId: 'starter', email } });
    expect(res.status).toBe(200);
    const again = await api('/api/checkout/session', { body: { planId: 'starter', email } });
    expect(again.body).toEqual(res.body);
    expect((await recorded<{ vendor: string }[]>('faults')).filter((f) => f.vendor === 'stripe')).toEqual([]);
    expect((await recorded<any[]>('payments')).filter((s) => s.customer_email === email)).toHaveLength(1);
  });

  it("never moves a paying account to a subscription someone bought anonymously with its e-mail: the event is recorded as a conflict", async () => {
    const user = await signedInUser();
    await clearOfCheckoutBucketEdge();
    expect((await payOnHostedPage((await user.client.get('/api/checkout?plan=pro', bearer(user.accessToken))).headers.get('location')!)).status).toBe(303);
    const accountId = (await memberRecordOf(user.email))!.account_id;
    const paying = await accountRow(accountId);
    expect(paying).toMatchObject({ plan: 'pro', subscription_status: 'active' });

    const res = await api('/api/checkout/session', { body: { planId: 'starter', email: user.email } });
    expect((await payOnHostedPage(res.body.url)).status).toBe(303);

    expect(await accountRow(accountId)).toMatchObject({
      plan: 'pro',
      subscription_status: 'active',
      subscription_id: paying.subscription_id,
      stripe_customer_id: paying.stripe_customer_id,
    });
    const sessionId = res.body.url.split('/').pop();
    const deliveries = (await recorded<any[]>('payments')).find((s) => s.id === sessionId).deliveries;
    const completed = deliveries.find((d: any) => d.event.type === 'checkout.session.completed');
    expect(completed.status).toBe(200);
    expect(await eventRow(completed.event.id)).toMatchObject({ value: 'conflict', account_id: accountId });
  });
});

describe('a Checkout Session the service did not make', () => {
  it("takes no account from its client_reference_id: paid with another account's id there, it is a public purchase and that account is left alone", async () => {
    // The attack: a Payment Link (or a Pricing Table) on the same Stripe account lets the buyer set
    // client_reference_id; a paid session carrying only account A's id replaced A's customer and subscription.
    const victim = await signedInUser({ companyName: `Victim ${crypto.randomUUID().slice(0, 6)}` });
    const accountId = (await memberRecordOf(victim.email))!.account_id as string;
    const before = await accountRow(accountId);
    const buyer = newEmail();
    const form = new URLSearchParams({
      mode: 'subscription',
      'line_items[0][price]': 'price_local_pro',
      'line_items[0][quantity]': '1',
      client_reference_id: accountId,
      customer_email: buyer,
      success_url: 'https://links.example/thanks',
    });
    const created = await fetch(`${stack().urls.emulators}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack().env.STRIPE_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(created.status).toBe(200);
    const session = (await created.json()) as { id: string; url: string; metadata: Record<string, string> };
    expect(session.metadata).toEqual({});
    expect((await payOnHostedPage(session.url)).status).toBe(303);

    const after = await accountRow(accountId);
    for (const field of ['stripe_customer_id', 'subscription_id', 'subscription_status', 'plan', 'billing_version']) expect(after[field], field).toEqual(before[field]);
    // The purchase has an account of its own, and the buyer an invitation to own it.
    const invited = await stackDb().send(
      new QueryCommand({ TableName: table('invitations'), IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': buyer } }),
    );
    expect(invited.Items).toEqual([expect.objectContaining({ role: 'owner', status: 'pending', invited_by: { kind: 'checkout' } })]);
    expect(invited.Items![0]!.account_id).not.toBe(accountId);
    // Paid for: the plan follows from the subscription's price once an invoice or subscription event names the account.
    expect(await accountRow(invited.Items![0]!.account_id)).toMatchObject({ subscription_status: 'active', contact_email: buyer });
  });
});

describe('POST /webhooks/payments', () => {
  it('changes the account once when the same event arrives 20 times at once', async () => {
    const { accountId, subscription } = await purchase();
    const payload = await emulatorEvent({ type: 'customer.subscription.updated', subscription, status: 'past_due' });
    const eventId = JSON.parse(payload).id as string;
    const before = await accountRow(accountId);

    const signature = sign(payload);
    const answers = (await Promise.all(Array.from({ length: 20 }, () => deliver(payload, signature)))).map((r) => copyAnswer(r, JSON.stringify));
    // Every copy is the same queued execution (named after the event), so each is acknowledged at once; Stripe's retry days later too.
    expect(answers).toEqual(Array(20).fill('200 {"received":true}'));
    expect(copyAnswer(await deliver(payload, signature), JSON.stringify)).toBe('200 {"received":true}');
    const { executions = [] } = await stackSfn().send(new ListExecutionsCommand({ stateMachineArn: PAYMENTS_MACHINE }));
    expect(executions.filter((e) => e.name === paymentJobName(eventId)).map((e) => e.status)).toEqual(['SUCCEEDED']);

    const after = await accountRow(accountId);
    expect(after).toMatchObject({ subscription_status: 'past_due', billing_version: before.billing_version + 1 });
    expect(after.billing_events.filter((id: string) => id === eventId)).toHaveLength(1);
    expect(await eventRow(eventId)).toMatchObject({ value: 'applied', account_id: accountId });
  });

  it('refuses a payload signed with the wrong secret, an unsigned one, a tampered one and a stale one with 400, changing nothing', async () => {
    const { accountId, subscription } = await purchase();
    const payload = await emulatorEvent({ type: 'customer.subscription.deleted', subscription });
    const eventId = JSON.parse(payload).id as string;
    const before = await accountRow(accountId);
    const attempts = [
      ['wrong secret', deliver(payload, sign(payload, { secret: 'whsec_not_ours' }))],
      ['unsigned', deliver(payload)],
      ['tampered', deliver(payload.replace('"canceled"', '"active"'), sign(payload))],
      ['stale', deliver(payload, sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 }))],
    ] as const;
    for (const [name, attempt] of attempts) {
      const res = await attempt;
      expect(res.status, name).toBe(400);
      expect(errorCode(res), name).toBe('invalid_signature');
    }
    expect(await accountRow(accountId)).toEqual(before);
    expect(await eventRow(eventId)).toBeUndefined();

    // The same payload, correctly signed, is taken.
    expect((await deliver(payload, sign(payload))).status).toBe(200);
    expect(await accountRow(accountId)).toMatchObject({ subscription_status: 'canceled', plan: 'free' });
  });

  it('never moves the status backwards when events arrive out of order, and acknowledges event types it ignores', async () => {
    const { accountId, subscription } = await purchase();
    const cancel = await emulatorEvent({ type: 'customer.subscription.deleted', subscription });
    const olderRenewal = await emulatorEvent({ type: 'invoice.paid', subscription, createdSecondsAgo: 120 });
    expect((await deliver(cancel, sign(cancel))).status).toBe(200);
    expect((await deliver(olderRenewal, sign(olderRenewal))).status).toBe(200);
    expect(await accountRow(accountId)).toMatchObject({ subscription_status: 'canceled', plan: 'free' });
    expect(await eventRow(JSON.parse(olderRenewal).id)).toMatchObject({ value: 'stale' });

    const other = JSON.stringify({ id: `evt_${crypto.randomUUID()}`, object: 'event', type: 'charge.refunded', created: Math.floor(Date.now() / 1000), data: { object: {} } });
    const res = await deliver(other, sign(other));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
  });
});

describe('a checkout an admin started (GET /api/checkout), paid later', () => {
  /** An owner whose account pays for a plan through their own checkout. */
  async function payingOwner(plan: string) {
    const owner = await signedInUser({ companyName: `Team ${crypto.randomUUID().slice(0, 6)}` });
    const auth = bearer(owner.accessToken);
    const accountId = (await owner.client.get('/api/auth/me', auth)).body.accounts[0].accountId as string;
    await clearOfCheckoutBucketEdge();
    expect((await payOnHostedPage((await owner.client.get(`/api/checkout?plan=${plan}`, auth)).headers.get('location')!)).status).toBe(303);
    const paying = await accountRow(accountId);
    expect(paying).toMatchObject({ plan, subscription_status: 'active' });
    return { ...owner, auth, accountId, paying };
  }

  /** Someone the owner invites as an admin (billing), who accepts; answers them with their user id. */
  async function admin(owner: Awaited<ReturnType<typeof payingOwner>>) {
    const c = client();
    const email = newEmail();
    await verifiedUser(c, undefined, email);
    const login = await logIn(c, email);
    const auth = bearer(login.body.session.access_token as string);
    const invited = await owner.client.post(`/api/accounts/${owner.accountId}/invitations`, { email, role: 'admin' }, owner.auth);
    expect(invited.status).toBe(201);
    expect((await c.post(`/api/invitations/${invited.body.invitationId}/accept`, undefined, auth)).status).toBe(200);
    return { client: c, auth, userId: login.body.user.id as string };
  }

  const completedEventOf = async (hostedPage: string) =>
    (await recorded<any[]>('payments')).find((s) => s.url === hostedPage).deliveries.find((d: any) => d.event.type === 'checkout.session.completed').event.id as string;

  // Found by an attack helper: the removed admin's page moved the account to starter on a new subscription of the
  // owner's customer, and the enterprise subscription (still billing) was no longer tracked.
  it('does not let an admin who was removed meanwhile move the paying account to her plan and subscription: the event is a billing conflict', { timeout: 120_000 }, async () => {
    const owner = await payingOwner('enterprise');
    const mallory = await admin(owner);
    const started = await mallory.client.get(`/api/checkout?plan=starter&accountId=${owner.accountId}`, mallory.auth);
    expect(started.status).toBe(303);
    const page = started.headers.get('location')!;

    // The owner removes her; her API access ends. Afterwards she pays the page she kept.
    expect((await owner.client.delete(`/api/accounts/${owner.accountId}/members/${mallory.userId}`, owner.auth)).status).toBe(204);
    expect((await mallory.client.get(`/api/checkout?plan=starter&accountId=${owner.accountId}`, mallory.auth)).status).toBe(404);
    expect((await payOnHostedPage(page)).status).toBe(303);

    expect(await accountRow(owner.accountId)).toMatchObject({
      plan: 'enterprise',
      subscription_status: 'active',
      subscription_id: owner.paying.subscription_id,
      stripe_customer_id: owner.paying.stripe_customer_id,
    });
    const eventId = await completedEventOf(page);
    expect(await eventRow(eventId)).toMatchObject({ value: 'conflict', account_id: owner.accountId });
    expect(await row('follow_ups', { account_id: owner.accountId, integration: 'billing' })).toMatchObject({
      state: 'open',
      run_id: `stripe#${eventId}`,
      message: expect.stringContaining('no longer allowed to manage'),
      context: expect.objectContaining({ startedBy: mallory.userId, accountSubscriptionId: owner.paying.subscription_id }),
    });
  });

  it('applies the checkout of an admin who is still one as before: the account moves to the plan and subscription she paid for', { timeout: 120_000 }, async () => {
    const owner = await payingOwner('enterprise');
    const bo = await admin(owner);
    const page = (await bo.client.get(`/api/checkout?plan=starter&accountId=${owner.accountId}`, bo.auth)).headers.get('location')!;
    expect((await payOnHostedPage(page)).status).toBe(303);

    const after = await accountRow(owner.accountId);
    expect(after).toMatchObject({ plan: 'starter', subscription_status: 'active', stripe_customer_id: owner.paying.stripe_customer_id });
    expect(after.subscription_id).not.toBe(owner.paying.subscription_id);
    expect(await eventRow(await completedEventOf(page))).toMatchObject({ value: 'applied', account_id: owner.accountId });
    expect(await row('follow_ups', { account_id: owner.accountId, integration: 'billing' })).toBeUndefined();
  });
});
