import { describe, expect, it } from 'vitest';
import {
  checkoutIdempotencyKey,
  checkoutRedirect,
  createPublicCheckout,
  type CheckoutDeps,
} from '../../../lib/checkout/start-checkout.ts';
import { firstAccountIdOf } from '../../../lib/accounts/open-account.ts';
import { ConfigError } from '../../../lib/config.ts';
import { Forbidden, InvalidInput, RateLimited } from '../../../lib/errors.ts';
import { ANONYMOUS, type Grant } from '../../../lib/access/caller.ts';
import type { PaidPlan } from '../../../lib/payments/plans.ts';
import { fakeMemberships, user as newUser } from '../../support/account-fakes.ts';
import { fakeAccounts } from '../../support/fakes.ts';
import { MemoryRateLimiter } from '../../support/auth-fakes.ts';
import { fakeBilling, fakePayments } from '../payments/fakes.ts';

const DASHBOARD = 'https://app.test';
const REQUEST_URL = 'https://api.test/api/checkout?plan=pro&utm=x%20y';

function setup(options: { sold?: PaidPlan[]; dashboardUrl?: string; now?: () => Date } = {}) {
  const { store, accounts, members } = fakeAccounts();
  const memberships = fakeMemberships();
  const payments = fakePayments(options.sold);
  let ids = 0;
  const deps: CheckoutDeps = {
    payments,
    accounts: store,
    memberships,
    billing: fakeBilling(accounts),
    settings: { dashboardUrl: options.dashboardUrl ?? DASHBOARD, publicSessionLimit: { limit: 3, windowSeconds: 600 } },
    now: options.now ?? (() => new Date('2030-01-01T12:00:10Z')),
    newId: () => `acct-${++ids}`,
  };
  const user = newUser({ email: 'Ann@Example.com' });
  const first = firstAccountIdOf(user.id);
  /** The grant the access rule gives: the signed-in user, and the account they may buy for (none: their first is opened). */
  const signedIn = (account?: string): Grant => ({ caller: { kind: 'user', user }, ...(account ? { account: { id: account, role: 'owner' } } : {}) });
  const as = (grant: Grant, plan: string | undefined) => checkoutRedirect(deps, { grant, plan, requestUrl: REQUEST_URL });
  const go = (plan: string | undefined, account?: string) => as(signedIn(account), plan);
  return { deps, payments, accounts, members, memberships, user, first, go, as };
}

const signupRedirect = { status: 302, location: `${DASHBOARD}/signup?redirect=${encodeURIComponent(REQUEST_URL)}` };

describe('GET /api/checkout', () => {
  it('sends a caller without a valid bearer token to signup, with this request URL-encoded, whatever the plan', async () => {
    const { as, payments, accounts } = setup();
    for (const plan of ['pro', '', 'bogus', undefined]) expect(await as({ caller: ANONYMOUS }, plan)).toEqual(signupRedirect);
    expect(payments.requests).toHaveLength(0);
    expect(accounts.size).toBe(0);
  });

  it('refuses a user whose e-mail is not confirmed', async () => {
    const { as } = setup();
    const unconfirmed: Grant = { caller: { kind: 'user', user: newUser({ emailConfirmed: false }) } };
    await expect(as(unconfirmed, 'pro')).rejects.toThrow(Forbidden);
  });

  it('answers a signed-in user 400 invalid_plan for a missing or unknown plan, and plan_unavailable for one not sold', async () => {
    const { go } = setup({ sold: ['starter'] });
    for (const plan of [undefined, '', 'bogus', 'pro-plus']) {
      const error = await go(plan).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInput);
      expect((error as InvalidInput).code).toBe('invalid_plan');
    }
    expect(await go('pro').catch((e: InvalidInput) => e.code)).toBe('plan_unavailable');
  });

  it('starts a subscription checkout for a user without an account yet: their first account (they own it) first, linked in the session', async () => {
    const { go, payments, accounts, memberships, user, first } = setup();
    const answer = await go(' Pro ');
    expect(answer).toEqual({ status: 303, location: 'https://checkout.test/pay/cs_test_1' });
    expect(await memberships.get(first, user.id)).toMatchObject({ role: 'owner', status: 'active' });
    expect(accounts.get(first)).toMatchObject({ contact_email: 'ann@example.com' });
    expect(payments.requests).toEqual([
      {
        plan: 'pro',
        reference: { accountId: first, userId: user.id, email: 'ann@example.com' },
        customer: { email: 'ann@example.com' },
        successUrl: `${DASHBOARD}/?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${DASHBOARD}/?checkout=canceled&plan=pro`,
        idempotencyKey: expect.stringMatching(/^checkout-\d+-[A-Za-z0-9_-]{43}$/),
      },
    ]);
  });

  it("offers the granted account's Stripe customer to its billing manager", async () => {
    const { go, payments, accounts } = setup();
    accounts.set('acct-paid', { id: 'acct-paid', status: 'active', stripe_customer_id: 'cus_42', created_at: 'x', updated_at: 'x' });
    await go('enterprise', 'acct-paid');
    expect(payments.requests[0]).toMatchObject({ customer: { id: 'cus_42' }, reference: { accountId: 'acct-paid' } });
  });

  it('makes one session of a double click, and one account of two first clicks at once', async () => {
    const { go, payments, memberships, accounts } = setup();
    const answers = await Promise.all([go('pro'), go('pro')]);
    expect(answers[0]).toEqual(answers[1]);
    expect(payments.sessions.size).toBe(1);
    expect(memberships.rows.size).toBe(1);
    expect(accounts.size).toBe(1);
    expect(payments.requests[0]!.idempotencyKey).toBe(payments.requests[1]!.idempotencyKey);
  });

  it('records the free plan and sends the user to the dashboard, without a payment', async () => {
    const { go, payments, accounts, first } = setup();
    expect(await go('free')).toEqual({ status: 303, location: `${DASHBOARD}/dashboard` });
    expect(accounts.get(first)).toMatchObject({ plan: 'free', billing_version: 1 });
    expect(payments.requests).toHaveLength(0);
  });

  it('records free once however many clicks ask for it at once: none of them fails on the others', async () => {
    const { go, accounts, deps, first } = setup();
    // More concurrent clicks than updateBilling makes attempts: each that re-wrote an already recorded free plan would make the others retry.
    const answers = await Promise.all(Array.from({ length: 25 }, () => go('free')));
    expect(answers).toEqual(Array(25).fill({ status: 303, location: `${DASHBOARD}/dashboard` }));
    expect(accounts.get(first)).toMatchObject({ plan: 'free', billing_version: 1 });
    expect((deps.billing as ReturnType<typeof fakeBilling>).writes).toBe(1);
  });

  it('does not downgrade a live paid subscription to free', async () => {
    const { go, accounts } = setup();
    accounts.set('acct-paid', { id: 'acct-paid', status: 'active', plan: 'pro', subscription_id: 'sub_1', subscription_status: 'active', created_at: 'x', updated_at: 'x' });
    expect((await go('free', 'acct-paid')).location).toBe(`${DASHBOARD}/dashboard`);
    expect(accounts.get('acct-paid')?.plan).toBe('pro');
  });

  it('needs the dashboard URL: it is the only place it redirects to besides the provider', async () => {
    const { deps } = setup({ dashboardUrl: '' });
    await expect(checkoutRedirect(deps, { grant: { caller: ANONYMOUS }, plan: 'pro', requestUrl: REQUEST_URL })).rejects.toThrow(ConfigError);
  });
});

describe('the checkout idempotency key', () => {
  const base = {
    plan: 'pro' as const,
    reference: { accountId: 'a', userId: 'u', email: 'e@x.test' },
    customer: { email: 'e@x.test' },
    successUrl: 's',
    cancelUrl: 'c',
  };
  const at = (iso: string) => new Date(iso);

  it('is the same within a minute, and differs by minute, plan, account, user and customer', () => {
    const key = checkoutIdempotencyKey(base, at('2030-01-01T12:00:01Z'));
    expect(checkoutIdempotencyKey(base, at('2030-01-01T12:00:59Z'))).toBe(key);
    const others = [
      checkoutIdempotencyKey(base, at('2030-01-01T12:01:00Z')),
      checkoutIdempotencyKey({ ...base, plan: 'starter' }, at('2030-01-01T12:00:01Z')),
      checkoutIdempotencyKey({ ...base, reference: { ...base.reference, accountId: 'b' } }, at('2030-01-01T12:00:01Z')),
      checkoutIdempotencyKey({ ...base, reference: { ...base.reference, userId: 'v' } }, at('2030-01-01T12:00:01Z')),
      checkoutIdempotencyKey({ ...base, customer: { id: 'cus_1' } }, at('2030-01-01T12:00:01Z')),
    ];
    expect(new Set([key, ...others]).size).toBe(6);
    expect(key.length).toBeLessThanOrEqual(255);
  });
});

describe('POST /api/checkout/session', () => {
  const publicDeps = (s: ReturnType<typeof setup>, limiter = new MemoryRateLimiter()) => ({ ...s.deps, limiter });

  it('starts a session for the e-mail and plan, writing nothing and offering no existing customer', async () => {
    const s = setup();
    await s.deps.accounts.claimMember({ email: 'ann@example.com', account_id: 'acct-paid', role: 'owner' });
    s.accounts.set('acct-paid', { id: 'acct-paid', status: 'active', stripe_customer_id: 'cus_42', created_at: 'x', updated_at: 'x' });
    const answer = await createPublicCheckout(publicDeps(s), { planId: 'starter', email: ' ANN@example.com ', clientIp: '203.0.113.1' });
    expect(answer).toEqual({ url: 'https://checkout.test/pay/cs_test_1' });
    expect(s.payments.requests[0]).toMatchObject({
      plan: 'starter',
      reference: { email: 'ann@example.com' },
      customer: { email: 'ann@example.com' },
      successUrl: `${DASHBOARD}/?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    });
    expect(s.payments.requests[0]!.reference).not.toHaveProperty('accountId');
    expect(s.accounts.size).toBe(1);
    expect(s.members.size).toBe(1);
  });

  it('refuses free and unknown plans, and plans not sold here', async () => {
    const s = setup({ sold: ['pro'] });
    for (const planId of ['free', 'bogus']) {
      expect(await createPublicCheckout(publicDeps(s), { planId, email: 'a@b.test', clientIp: 'ip' }).catch((e: InvalidInput) => e.code)).toBe('invalid_plan');
    }
    expect(await createPublicCheckout(publicDeps(s), { planId: 'starter', email: 'a@b.test', clientIp: 'ip' }).catch((e: InvalidInput) => e.code)).toBe(
      'plan_unavailable',
    );
    expect(s.payments.requests).toHaveLength(0);
  });

  it('limits sessions per client address', async () => {
    const s = setup();
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 3; i++) await createPublicCheckout(publicDeps(s, limiter), { planId: 'pro', email: `p${i}@b.test`, clientIp: 'ip-1' });
    await expect(createPublicCheckout(publicDeps(s, limiter), { planId: 'pro', email: 'late@b.test', clientIp: 'ip-1' })).rejects.toThrow(RateLimited);
    await createPublicCheckout(publicDeps(s, limiter), { planId: 'pro', email: 'late@b.test', clientIp: 'ip-2' });
    expect(s.payments.requests).toHaveLength(4);
  });
});
