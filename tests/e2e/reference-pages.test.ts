// The local stack's reference pages (local/pages), driven in headless Chromium
// as a person would: sign up on the dashboard, follow the link of the
// verification e-mail to the portal, sign in, choose a plan, pay on the Stripe
// emulator's hosted page, and land on the dashboard, which shows the plan.
// Saves a screenshot of that dashboard for docs/local-stack.md.
import { createApiClient, unwrap } from '@onboarding-automation/api-client';
import { describe, expect, it } from 'vitest';
import { noBrowser, openBrowser } from '../support/browser.ts';
import { fetchFrom, recorded, stack } from '../support/http.ts';
import { client, mailTo, PASSWORD, verifiedUser } from '../support/users.ts';

const SCREENSHOT = 'docs/images/reference-dashboard.png';
/** Pages answer when the API has: a loaded machine may take seconds, so waits end on the condition, not at a second. */
const UNTIL = { timeout: 60_000, interval: 100 };

if (noBrowser) console.warn(`Skipping the reference pages' browser test: ${noBrowser}`);

describe('the reference pages', () => {
  it('answer at the addresses the service links to, and only at the pages they have', async () => {
    const { dashboard, portal } = stack().urls;
    expect(stack().env).toMatchObject({ DASHBOARD_URL: dashboard, PORTAL_URL: portal });
    for (const path of ['/', '/dashboard', '/signup', '/login']) expect((await fetch(`${dashboard}${path}`)).status, path).toBe(200);
    for (const path of ['/verify', '/reset-password', '/forgot-password', '/onboarding', '/acme-bakery', '/invitations/1f2e']) {
      const page = await fetch(`${portal}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect((await fetch(`${dashboard}/verify`)).status).toBe(404);
    expect((await fetch(`${portal}/a/b`)).status).toBe(404);
    const script = await fetch(`${portal}/app.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await script.text()).toContain('/api/verify-email');
  });

  it.skipIf(noBrowser)(
    'sign up, verify from the e-mail, sign in, pay on the hosted page: the dashboard shows the plan',
    async () => {
      const { dashboard, portal, emulators, api: apiUrl } = stack().urls;
      const email = 'dana@reference-pages.example';
      const browser = await openBrowser({ viewport: { width: 1100, height: 640 } });
      try {
        const page = await browser.context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(error.message));

        await page.goto(`${dashboard}/signup`);
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByLabel('Your name').fill('Dana');
        await page.getByLabel('Company').fill('Dana Ceramics');
        await page.getByRole('button', { name: 'Sign up' }).click();
        await page.getByText(`We sent a confirmation link to ${email}`).waitFor();

        // The link of the e-mail, as the mailbox shows it, leads to the portal's /verify.
        const [mail] = (await mailTo(email)).filter((m) => m.subject === 'Confirm your e-mail address');
        const link = new RegExp(`${portal}/verify\\?token=[\\w-]+`).exec(mail!.text)?.[0];
        expect(link).toBeDefined();
        await page.goto(link!);
        await expect.poll(() => page.locator('#verify-outcome').textContent(), UNTIL).toBe(`${email} is confirmed.`);

        await page.getByRole('link', { name: 'Choose a plan on the dashboard' }).click();
        await page.waitForURL(`${dashboard}/dashboard`);
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const account = page.locator('#accounts tbody tr');
        await expect.poll(() => account.locator('td').first().textContent(), UNTIL).toBe('Dana Ceramics');
        expect(await account.locator('td.plan').textContent()).toBe('none');

        await page.locator('button[data-plan="pro"]').click();
        await page.waitForURL(`${emulators}/stripe/pay/**`);
        await page.locator('#pay').click();
        await page.waitForURL((url) => url.origin === dashboard && url.searchParams.get('checkout') === 'success');
        expect(new URL(page.url()).searchParams.get('session_id')).toMatch(/^cs_/);
        await expect.poll(() => page.locator('#checkout-outcome').textContent(), UNTIL).toBe('Payment confirmed: Dana Ceramics is on the pro plan.');
        expect(await account.locator('td.plan').textContent()).toBe('pro');
        expect(problems).toEqual([]);
        await page.screenshot({ path: SCREENSHOT });

        // What the page shows is what the service recorded: the account, seen through the API, pays for pro.
        const fetch = fetchFrom();
        const { session } = unwrap(await createApiClient({ baseUrl: apiUrl, fetch }).POST('/api/auth/login', { body: { email, password: PASSWORD } }));
        const me = unwrap(await createApiClient({ baseUrl: apiUrl, fetch, token: session.access_token }).GET('/api/auth/me'));
        expect(me.accounts).toEqual([expect.objectContaining({ companyName: 'Dana Ceramics', role: 'owner', plan: 'pro', subscriptionStatus: 'active' })]);
        const payments = await recorded<{ customer_email?: string; status: string }[]>('payments');
        expect(payments.filter((p) => JSON.stringify(p).includes(email)).length).toBe(1);
      } finally {
        await browser.close();
      }
    },
    180_000,
  );

  it.skipIf(noBrowser)('reset a password from the e-mailed link: the page takes the token from the URL hash and posts it', async () => {
    const { email } = await verifiedUser(client(), 'Reset Pages Co');
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${stack().urls.portal}/forgot-password`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByRole('button', { name: 'Send me a reset link' }).click();
      await page.locator('.outcome p').waitFor();

      // The e-mail's link goes through the identity provider, which lands on the reset page with the token in the hash.
      const [mail] = (await mailTo(email)).filter((m) => m.subject === 'Reset your password');
      const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail!.text)![0];
      await page.goto(link);
      await page.waitForURL(`${stack().urls.portal}/reset-password`);
      expect(new URL(page.url()).hash).toBe(''); // taken from the address bar, kept by the page alone
      await page.getByLabel('New password').fill('Another456');
      await page.getByRole('button', { name: 'Save the new password' }).click();
      await page.getByRole('link', { name: 'Sign in' }).waitFor();

      const api = createApiClient({ baseUrl: stack().urls.api, fetch: fetchFrom() });
      expect((await api.POST('/api/auth/login', { body: { email, password: 'Another456' } })).response.status).toBe(200);
      expect((await api.POST('/api/auth/login', { body: { email, password: PASSWORD } })).error?.error.code).toBe('invalid_credentials');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
