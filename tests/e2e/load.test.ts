// Load, bounded in count and time, against the running stack: hundreds of
// concurrent requests, then the invariants that must hold afterwards. Speed
// is measured by the bench (npm run bench), never asserted here.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { api, errorCode, randomLoopbackIp, recorded, stack, type Reply } from '../support/http.ts';
import { followRun, SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';
import { accountRow, clearOfCheckoutBucketEdge, deliverPayment, emulatorEvent, paymentEventRow, purchase, signStripe } from '../support/payments.ts';
import { memberRecord, memberRecordOf, memberRecordsOfAccount, stackDb, table } from '../support/stack-db.ts';
import { bearer, newEmail, PASSWORD, signedInUser, verificationToken } from '../support/users.ts';
import {
  bookingExecution,
  calendlyBody,
  calendlyEventId,
  chatAbout,
  copyAnswer,
  deliverWebhook,
  membershipMember,
  onboardedAccount,
  onboardingTasks,
} from '../support/webhooks.ts';

const statuses = (replies: Reply[]) => replies.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
const noServerErrors = (replies: Reply[]) => expect(replies.filter((r) => r.status >= 500).map((r) => r.text.slice(0, 200))).toEqual([]);
/** The same items in a random order: duplicates of one event interleave with the others'. */
const shuffled = <T>(items: T[]): T[] => {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('load', () => {
  it('two hundred concurrent signups from as many clients all succeed', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => api('/api/auth/signup', { body: { email: newEmail(), password: PASSWORD }, fromIp: randomLoopbackIp() })),
    );
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 201: 200 });
  });

  it('holds the signup limit exactly when one client sends a hundred at once', async () => {
    const ip = randomLoopbackIp();
    const replies = await Promise.all(Array.from({ length: 100 }, () => api('/api/auth/signup', { body: { email: newEmail(), password: PASSWORD }, fromIp: ip })));
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 201: 5, 429: 95 });
    for (const r of replies.filter((r) => r.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('logs in a hundred users concurrently, and holds the login limit exactly for one client', async () => {
    const users = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const email = newEmail();
        const ip = randomLoopbackIp();
        expect((await api('/api/auth/signup', { body: { email, password: PASSWORD }, fromIp: ip })).status).toBe(201);
        expect((await api('/api/verify-email', { body: { token: await verificationToken(email) }, fromIp: ip })).status).toBe(200);
        return email;
      }),
    );
    const logins = await Promise.all(
      [...users, ...users].map((email) => api('/api/auth/login', { body: { email, password: PASSWORD }, fromIp: randomLoopbackIp() })),
    );
    noServerErrors(logins);
    expect(statuses(logins)).toEqual({ 200: 100 });
    for (const r of logins) expect(r.body.session.access_token).toEqual(expect.any(String));

    const ip = randomLoopbackIp();
    const guesses = await Promise.all(
      Array.from({ length: 40 }, () => api('/api/auth/login', { body: { email: users[0], password: 'Wrong1234' }, fromIp: ip })),
    );
    noServerErrors(guesses);
    expect(statuses(guesses)).toEqual({ 401: 10, 429: 30 });
  });

  // A bound on a machine, not a timing assertion: two hundred runs take their time on a small shared machine.
  it('onboards two hundred companies at once: all complete, every slug unique', { timeout: 240_000 }, async () => {
    const t = uniqueToken();
    // Some share a name, so slugs are contended as well.
    const companies = Array.from({ length: 200 }, (_, i) => ({ name: i % 4 === 0 ? `Load Shared ${t}` : `Load ${i} ${t}`, email: `load-${i}-${t}@example.com` }));
    const replies = await Promise.all(
      companies.map((c) => api('/api/onboarding-v2', { body: { email: c.email, companyName: c.name }, headers: SERVICE_KEY }).then(followRun)),
    );
    noServerErrors(replies);
    expect(statuses(replies)).toEqual({ 200: 200 });
    // Each answer is its own run's result: the account opened for its address, holding the slug answered.
    for (const [i, r] of replies.entries()) {
      expect(r.body, companies[i]!.email).toMatchObject({ success: true, accountId: expect.any(String), portalSlug: expect.any(String) });
      expect(await accountRow(r.body.accountId), companies[i]!.email).toMatchObject({ contact_email: companies[i]!.email, portal_slug: r.body.portalSlug });
    }
    const slugs = replies.map((r) => r.body.portalSlug as string);
    expect(new Set(slugs).size).toBe(200);

    // Every onboarding's records are complete, and nothing is duplicated.
    const [folders, storage, chat, crm] = await Promise.all([recorded('tasks'), recorded('storage'), recorded('chat'), recorded('crm')]);
    for (const [i, slug] of slugs.entries()) {
      const name = companies[i]!.name;
      expect(folders.filter((f: { name: string }) => f.name === `${name} (${slug})`), slug).toHaveLength(1);
      expect(storage.filter((e: { path: string; type: string }) => e.path.startsWith(`/Clients/${slug}/`) && e.type === 'folder'), slug).toHaveLength(10);
    }
    expect(crm.filter((l: { name: string }) => l.name.endsWith(t))).toHaveLength(200);
    // Slack posts are at-least-once (no idempotency key): every company got its notice; a slow answer may repeat one.
    const notices = chat.filter((m: { text: string }) => m.text.includes(t) && m.text.startsWith('New client onboarded'));
    for (const c of new Set(companies.map((c) => c.name))) expect(notices.some((m: { text: string }) => m.text.includes(`${c}\n`)), c).toBe(true);
    expect(notices.length).toBeGreaterThanOrEqual(200);
  });

  it('answers two hundred concurrent checkout redirects, anonymous and signed in, only with allowed redirects; a forty-fold double click makes one session', async () => {
    const apiUrl = stack().urls.api;
    const dashboard = stack().env.DASHBOARD_URL!;
    const payPage = new RegExp(`^${escapeRegExp(stack().urls.emulators)}/stripe/pay/cs_test_[A-Za-z0-9]+$`);
    const signupFor = (query: string) => `${dashboard}/signup?redirect=${encodeURIComponent(`${apiUrl}/api/checkout${query}`)}`;

    // Verified users without an account yet: their first checkout makes it, concurrently with their own duplicates.
    const paidPlans = ['starter', 'pro', 'enterprise'] as const;
    const [clicker, freeClicker, ...others] = await Promise.all(Array.from({ length: 37 }, () => signedInUser()));
    const buyers = others.slice(0, 20).map((user, i) => ({ user, plan: paidPlans[i % 3]! }));
    const freeUsers = others.slice(20, 30);
    const undecided = others.slice(30);

    const [clickerIp, freeClickerIp] = [randomLoopbackIp(), randomLoopbackIp()];
    type Kind = 'anonymous' | 'double-click' | 'free-double-click' | 'buyer' | 'free' | 'no-plan';
    interface Call { kind: Kind; query: string; headers: Record<string, string>; fromIp: string; email?: string; plan?: string }
    const anonymousQueries = ['?plan=pro', '?plan=starter', '?plan=enterprise', '?plan=free', '?plan=', '?plan=bogus', '', '?plan=pro&utm_source=mail'];
    const calls: Call[] = [
      // Each anonymous browser from an address of its own; half of them with a token the identity provider refuses.
      ...Array.from({ length: 100 }, (_, i): Call => ({
        kind: 'anonymous',
        query: anonymousQueries[i % anonymousQueries.length]!,
        headers: i % 2 ? bearer('not.a.token') : {},
        fromIp: randomLoopbackIp(),
      })),
      // One browser clicking forty times, another clicking free twenty times (which once made some of them 500: each
      // click re-wrote the free plan, so the others' compare-and-set lost round after round until updateBilling gave up).
      ...Array.from({ length: 40 }, (): Call => ({ kind: 'double-click', query: '?plan=pro', headers: bearer(clicker!.accessToken), fromIp: clickerIp, email: clicker!.email })),
      ...Array.from({ length: 20 }, (): Call => ({ kind: 'free-double-click', query: '?plan=free', headers: bearer(freeClicker!.accessToken), fromIp: freeClickerIp })),
      ...buyers.map(({ user, plan }): Call => ({ kind: 'buyer', query: `?plan=${plan}`, headers: bearer(user.accessToken), fromIp: randomLoopbackIp(), email: user.email, plan })),
      ...freeUsers.map((user): Call => ({ kind: 'free', query: '?plan=free', headers: bearer(user.accessToken), fromIp: randomLoopbackIp() })),
      ...undecided.flatMap((user) => ['?plan=bogus', '?plan='].map((query): Call => ({ kind: 'no-plan', query, headers: bearer(user.accessToken), fromIp: randomLoopbackIp() }))),
    ];
    expect(calls).toHaveLength(200);

    await clearOfCheckoutBucketEdge();
    const order = shuffled(calls);
    const replies = await Promise.all(order.map((c) => api(`/api/checkout${c.query}`, { headers: c.headers, fromIp: c.fromIp })));
    noServerErrors(replies);
    // GET /api/checkout has no rate limit of its own (only POST /api/checkout/session has one), so nothing is 429.
    expect(statuses(replies)).toEqual({ 302: 100, 303: 90, 400: 10 });

    // Every redirect goes to the dashboard or to the provider's hosted page, nowhere else.
    const locations = replies.map((r) => r.headers.get('location')).filter((l): l is string => l !== null);
    expect(locations).toHaveLength(190);
    for (const l of locations) expect(l.startsWith(`${dashboard}/signup?redirect=`) || l === `${dashboard}/dashboard` || payPage.test(l), l).toBe(true);

    const answered = order.map((call, i) => ({ call, reply: replies[i]! }));
    const of = (kind: Kind) => answered.filter((a) => a.call.kind === kind);
    for (const { call, reply } of of('anonymous')) {
      expect(reply.status, call.query).toBe(302);
      expect(reply.headers.get('location')).toBe(signupFor(call.query));
    }
    for (const { reply } of [...of('free-double-click'), ...of('free')]) {
      expect(reply.status).toBe(303);
      expect(reply.headers.get('location')).toBe(`${dashboard}/dashboard`);
    }
    for (const { call, reply } of of('no-plan')) {
      expect(reply.status, call.query).toBe(400);
      expect(errorCode(reply)).toBe('invalid_plan');
    }

    // The double click: forty answers, one hosted page, one session at Stripe, one account.
    const clicks = of('double-click');
    expect(new Set(clicks.map(({ reply }) => `${reply.status} ${reply.headers.get('location')}`)).size).toBe(1);
    const hosted = clicks[0]!.reply.headers.get('location')!;
    expect(hosted).toMatch(payPage);
    const sessions = await recorded<any[]>('payments');
    const sessionsOf = (email: string) => sessions.filter((s) => s.metadata?.email === email);
    const clickerAccount = (await memberRecordOf(clicker!.email))!.account_id as string;
    expect(sessionsOf(clicker!.email).map((s) => [s.url, s.metadata.plan, s.client_reference_id])).toEqual([[hosted, 'pro', clickerAccount]]);

    // Each buyer: their own hosted page, for the plan they chose, tied to their own account.
    const buyerPages = of('buyer').map(({ reply }) => reply.headers.get('location')!);
    expect(new Set(buyerPages).size).toBe(buyers.length);
    for (const { call, reply } of of('buyer')) {
      const account = (await memberRecordOf(call.email!))!.account_id as string;
      expect(sessionsOf(call.email!).map((s) => [s.url, s.metadata.plan, s.client_reference_id])).toEqual([[reply.headers.get('location'), call.plan, account]]);
    }

    // Free is recorded without a session, however many times it is asked for at once.
    for (const user of [freeClicker!, ...freeUsers]) {
      expect(sessionsOf(user.email)).toEqual([]);
      expect(await accountRow((await memberRecordOf(user.email))!.account_id as string)).toMatchObject({ plan: 'free' });
    }
    for (const user of undecided) {
      expect(sessionsOf(user.email)).toEqual([]);
      expect(await memberRecordOf(user.email)).toBeUndefined();
    }
  });

  it('applies each of eight Stripe events once when every one is delivered thirty times at once, all interleaved', async () => {
    const COPIES = 30;
    const accounts = await Promise.all(Array.from({ length: 3 }, () => purchase()));
    const before = await Promise.all(accounts.map((a) => accountRow(a.accountId)));

    // Two events per account, as the emulator renders them: its subscription falls past due, and a renewal is paid.
    // Stripe's clock is in seconds, and events of one second apply in arrival order: both are given the same second, so
    // that both apply whichever arrives first (one a second older would rightly be stale when it came second).
    const perAccount = await Promise.all(
      accounts.map(async (a) => {
        const rendered = [
          JSON.parse(await emulatorEvent({ type: 'customer.subscription.updated', subscription: a.subscription, status: 'past_due' })),
          JSON.parse(await emulatorEvent({ type: 'invoice.paid', subscription: a.subscription })),
        ];
        const second = Math.max(...rendered.map((e) => e.created as number));
        return rendered.map((e) => ({ id: e.id as string, status: e.type === 'invoice.paid' ? 'active' : 'past_due', payload: JSON.stringify({ ...e, created: second }, null, 2) }));
      }),
    );

    // A public checkout paid by an e-mail address that owns no account: its account and the buyer's invitation are made by
    // the event, and thirty concurrent copies of it must make them once. Rendered from the session as Stripe completes it (the emulator delivers
    // the events of a session paid on its page itself, so the test builds this one from the open session).
    const buyer = newEmail();
    const started = await api('/api/checkout/session', { body: { planId: 'starter', email: buyer }, fromIp: randomLoopbackIp() });
    expect(started.status).toBe(200);
    const sessionId = new URL(started.body.url).pathname.split('/').pop()!;
    const { line_items: _items, subscription_data: _data, deliveries: _deliveries, ...open } = (await recorded<any[]>('payments')).find((s) => s.id === sessionId);
    const customer = `cus_${uniqueToken()}${uniqueToken()}`;
    const completed = {
      ...JSON.parse(perAccount[0]![0]!.payload),
      id: `evt_${crypto.randomUUID().replaceAll('-', '')}`,
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          ...open,
          status: 'complete',
          payment_status: 'paid',
          customer,
          subscription: `sub_${uniqueToken()}${uniqueToken()}`,
          customer_details: { email: buyer, name: null, address: null, phone: null, tax_exempt: 'none', tax_ids: [] },
        },
      },
    };
    // And an event type the service does not act on.
    const refund = { id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', type: 'charge.refunded', created: Math.floor(Date.now() / 1000), data: { object: {} } };

    const events = [...perAccount.flat().map((e) => e.payload), JSON.stringify(completed, null, 2), JSON.stringify(refund)].map((payload) => ({
      id: JSON.parse(payload).id as string,
      payload,
      signature: signStripe(payload),
    }));
    expect(new Set(events.map((e) => e.id)).size).toBe(8);
    const deliveries = shuffled(events.flatMap((e) => Array.from({ length: COPIES }, () => e)));
    const replies = await Promise.all(deliveries.map((e) => deliverPayment(e.payload, e.signature)));
    noServerErrors(replies);
    // Every copy of an event is the same queued execution (named after the event), so each is acknowledged at once.
    const answer = (r: Reply) => copyAnswer(r, JSON.stringify);
    const received = '200 {"received":true}';
    for (const e of events) expect(deliveries.flatMap((d, i) => (d === e ? [answer(replies[i]!)] : [])), e.id).toEqual(Array(COPIES).fill(received));
    // Stripe's retry of each event, once the first is done, is acknowledged.
    expect((await Promise.all(events.map((e) => deliverPayment(e.payload, e.signature)))).map(answer)).toEqual(Array(events.length).fill(received));

    // Each account moved exactly twice, once per event; its status is the one of the event applied last.
    for (const [i, a] of accounts.entries()) {
      const after = await accountRow(a.accountId);
      const mine = perAccount[i]!;
      expect(after.billing_version, a.accountId).toBe(before[i]!.billing_version + 2);
      for (const e of mine) {
        expect(after.billing_events.filter((id: string) => id === e.id), e.id).toHaveLength(1);
        expect(await paymentEventRow(e.id)).toMatchObject({ value: 'applied', account_id: a.accountId });
      }
      const last = mine.find((e) => e.id === after.billing_events.at(-1))!;
      expect(after).toMatchObject({ plan: 'pro', subscription_status: last.status, subscription_id: a.subscription, stripe_customer_id: a.customer });
    }

    // The new buyer: one account, holding the subscription, and one invitation to own it (nobody is a member until they accept).
    const byCustomer = await stackDb().send(
      new QueryCommand({ TableName: table('accounts'), IndexName: 'byStripeCustomer', KeyConditionExpression: 'stripe_customer_id = :c', ExpressionAttributeValues: { ':c': customer } }),
    );
    expect(byCustomer.Items).toHaveLength(1);
    const owner = { account_id: byCustomer.Items![0]!.id as string };
    expect(await accountRow(owner.account_id)).toMatchObject({
      plan: 'starter',
      subscription_status: 'active',
      stripe_customer_id: customer,
      contact_email: buyer,
      billing_version: 1,
      billing_events: [completed.id],
    });
    const invited = await stackDb().send(
      new QueryCommand({ TableName: table('invitations'), IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': buyer } }),
    );
    expect(invited.Items).toEqual([expect.objectContaining({ account_id: owner.account_id, role: 'owner', status: 'pending' })]);
    expect(await memberRecordOf(buyer)).toBeUndefined();
    expect(await paymentEventRow(completed.id)).toMatchObject({ value: 'applied', account_id: owner.account_id });
    // Acknowledged, and not even recorded.
    expect(await paymentEventRow(refund.id)).toBeUndefined();
  });

  it('queues each of six bookings once and records each of two members once when every delivery arrives twenty times at once, interleaved', async () => {
    const COPIES = 20;
    const accounts = await Promise.all([onboardedAccount(), onboardedAccount()]);
    const bookings = accounts.flatMap((account) => Array.from({ length: 3 }, () => ({ account, t: uniqueToken() })));
    const members = accounts.map((account) => {
      const t = uniqueToken();
      const email = `mo-${t}@example.org`;
      return { account, email, body: JSON.stringify({ event: 'member.created', timestamp: Date.now() - 1000, payload: membershipMember(`mem_${t}`, email) }) };
    });
    type Delivery = { kind: 'booking' | 'member'; key: string; url: string; body: string };
    const distinct: Delivery[] = [
      ...bookings.map(({ account, t }): Delivery => ({ kind: 'booking', key: t, url: account.urls.booking, body: calendlyBody('invitee.created', t) })),
      ...members.map(({ account, email, body }): Delivery => ({ kind: 'member', key: email, url: account.urls.membership, body })),
    ];
    const order = shuffled(distinct.flatMap((d) => Array.from({ length: COPIES }, () => d)));
    const replies = await Promise.all(order.map((d) => deliverWebhook(d.url, d.body)));
    noServerErrors(replies);

    // Each copy is answered at once. A booking: every copy is the one execution named after the event, so each is 200
    // (queued while it runs, a duplicate once it has finished). A member: one delivery takes effect; a copy is told to
    // retry (409 delivery_in_progress with Retry-After) while the first is at work, a duplicate once it is done.
    const outcome = (r: Reply) => copyAnswer(r);
    for (const d of distinct) {
      const answers = order.flatMap((o, i) => (o === d ? [outcome(replies[i]!)] : []));
      expect(answers, d.key).toHaveLength(COPIES);
      if (d.kind === 'booking') {
        expect(answers, d.key).toContain('200 queued');
        for (const a of answers) expect(['200 queued', '200 duplicate'], d.key).toContain(a);
      } else {
        expect(answers.filter((a) => a === '200 applied'), d.key).toHaveLength(1);
        for (const a of answers.filter((a) => a !== '200 applied')) expect(['200 duplicate', 'retry later'], d.key).toContain(a);
      }
    }

    // Each booking: one execution ran to the end, one task in the account's onboarding list.
    await Promise.all(bookings.map(({ account, t }) => bookingExecution(account.accountId, 'calendly', calendlyEventId('invitee.created', t))));
    for (const account of accounts) {
      const tasks = await onboardingTasks(account);
      for (const { t } of bookings.filter((b) => b.account === account)) expect(tasks.filter((task) => task.name.includes(`Guest ${t}`)), t).toHaveLength(1);
    }
    // One chat alert per booking is what the workflow does (it remembers the post); but Slack has no idempotency key,
    // so a post whose answer was lost (a timeout) is posted again on retry: at least one, each with the booking's text.
    for (const { account, t } of bookings) {
      const alerts = await chatAbout(`Guest ${t}`);
      expect(alerts.length, t).toBeGreaterThanOrEqual(1);
      for (const alert of alerts) expect(alert.text).toMatch(new RegExp(`^New booking for ${escapeRegExp(account.company)}: Guest ${t} \\(guest-${t}@example\\.org\\) booked "Kick-off call"`));
    }

    // Each member: one record, in its own account, beside the owner.
    for (const { account, email } of members) {
      expect(await memberRecord(account.accountId, email)).toMatchObject({ account_id: account.accountId, role: 'member', status: 'active' });
      expect((await memberRecordsOfAccount(account.accountId)).map((m) => m.role).sort()).toEqual(['member', 'owner']);
    }

    // Once the first is done, a late copy of any of them is a plain duplicate.
    const late = await Promise.all(distinct.map((d) => deliverWebhook(d.url, d.body)));
    expect(late.map(outcome)).toEqual(Array(distinct.length).fill('200 duplicate'));
  });
});
