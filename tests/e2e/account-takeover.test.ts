// The attack of the accounts issue, over HTTP, as it was tried: Mallory makes
// her membership sync name a stranger's address, and waits for the stranger
// to sign up, pay and onboard. Nothing of that may land in Mallory's account,
// and nothing of Mallory's may reach the stranger.
import { describe, expect, it, vi } from 'vitest';
import { recorded } from '../support/http.ts';
import { followRun, uniqueToken } from '../support/onboarding.ts';
import { accountRow, payOnHostedPage } from '../support/payments.ts';
import { bearer, client, logIn, signedInUser, verifiedUser } from '../support/users.ts';
import { deliverWebhook, membershipMember } from '../support/webhooks.ts';

const sessionOf = async (hostedPage: string) => (await recorded<{ id: string; url: string; client_reference_id?: string; customer?: string }[]>('payments')).find((s) => s.url === hostedPage)!;

describe('a membership sync that names a stranger', () => {
  it('leaves the stranger in an account of their own: redirect, checkout, payment and onboarding never touch the account that named them', async () => {
    const t = uniqueToken();
    const malloryCompany = `Mallory Ltd ${t}`;
    const mallory = await signedInUser({ companyName: malloryCompany });
    const onboarded = await followRun(
      await mallory.client.post('/api/onboarding-v2', { email: mallory.email, companyName: malloryCompany }, bearer(mallory.accessToken)),
    );
    expect(onboarded.status).toBe(200);
    const malloryAccount = onboarded.body.accountId as string;
    const mallorySlug = onboarded.body.portalSlug as string;
    const settings = await mallory.client.get(`/api/accounts/${malloryAccount}/webhooks`, bearer(mallory.accessToken));
    expect(settings.status).toBe(200);

    const ceo = `ceo-${t}@bigcorp.example`;
    const sync = await deliverWebhook(
      settings.body.urls.membership,
      JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: membershipMember(`mem_${t}`, ceo) }),
    );
    expect(sync.status).toBe(200);

    // The stranger signs up and verifies: sent to their own company's portal, not Mallory's.
    const stranger = client();
    const { verified } = await verifiedUser(stranger, `BigCorp ${t}`, ceo);
    expect(verified.redirectTo).not.toContain(`/${mallorySlug}`);
    const token = (await logIn(stranger, ceo)).body.session.access_token as string;

    // Their checkout is for an account that is not Mallory's, and paying leaves Mallory's alone.
    const start = await stranger.get('/api/checkout?plan=pro', bearer(token));
    expect(start.status).toBe(303);
    const page = start.headers.get('location')!;
    const session = await sessionOf(page);
    expect(session.client_reference_id).not.toBe(malloryAccount);
    expect((await payOnHostedPage(page)).status).toBe(303);
    const strangerAccount = session.client_reference_id!;
    await vi.waitFor(async () => expect((await accountRow(strangerAccount)).subscription_status).toBe('active'), { timeout: 20_000 });
    const strangerCustomer = (await accountRow(strangerAccount)).stripe_customer_id as string;
    expect(await accountRow(malloryAccount)).not.toHaveProperty('stripe_customer_id');
    expect(await accountRow(malloryAccount)).not.toHaveProperty('plan');

    // Their onboarding writes BigCorp into their own account.
    const theirs = await followRun(
      await stranger.post('/api/onboarding-v2', { email: ceo, companyName: `BigCorp ${t}`, website: 'bigcorp.example', phone: '+1 555 0199' }, bearer(token)),
    );
    expect(theirs.status).toBe(200);
    expect(theirs.body.accountId).not.toBe(malloryAccount);
    expect(await accountRow(malloryAccount)).toMatchObject({ company_name: malloryCompany });
    expect(await accountRow(malloryAccount)).not.toHaveProperty('phone');

    // Mallory's next checkout is not offered the stranger's customer (nor their saved cards).
    const again = await mallory.client.get('/api/checkout?plan=pro', bearer(mallory.accessToken));
    expect(again.status).toBe(303);
    expect((await sessionOf(again.headers.get('location')!)).customer ?? null).not.toBe(strangerCustomer);
  });
});
