// The local stack's reference pages (local/pages), driven in headless Chromium
// as a person would: sign up on the dashboard, follow the link of the
// verification e-mail to the portal, sign in, choose a plan, pay on the Stripe
// emulator's hosted page, and land on the dashboard, which shows the plan.
// Saves a screenshot of that dashboard for docs/local-stack.md.
import { createApiClient, unwrap } from '@onboarding-automation/api-client';
import { describe, expect, it } from 'vitest';
import { noBrowser, openBrowser } from '../support/browser.ts';
import { recorded, stack } from '../support/http.ts';
import { mailTo, PASSWORD } from '../support/users.ts';

const SCREENSHOT = 'docs/images/reference-dashboard.png';

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
        await expect.poll(() => page.locator('#verify-outcome').textContent()).toBe(`${email} is confirmed.`);

        await page.getByRole('link', { name: 'Choose a plan on the dashboard' }).click();
        await page.waitForURL(`${dashboard}/dashboard`);
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const account = page.locator('#accounts tbody tr');
        await expect.poll(() => account.locator('td').first().textContent()).toBe('Dana Ceramics');
        expect(await account.locator('td.plan').textContent()).toBe('none');

        await page.locator('button[data-plan="pro"]').click();
        await page.waitForURL(`${emulators}/stripe/pay/**`);
        await page.locator('#pay').click();
        await page.waitForURL((url) => url.origin === dashboard && url.searchParams.get('checkout') === 'success');
        expect(new URL(page.url()).searchParams.get('session_id')).toMatch(/^cs_/);
        await expect.poll(() => page.locator('#checkout-outcome').textContent(), { timeout: 60_000 }).toBe('Payment confirmed: Dana Ceramics is on the pro plan.');
        expect(await account.locator('td.plan').textContent()).toBe('pro');
        expect(problems).toEqual([]);
        await page.screenshot({ path: SCREENSHOT });

        // What the page shows is what the service recorded: the account, seen through the API, pays for pro.
        const api = createApiClient({ baseUrl: apiUrl });
        const { session } = unwrap(await api.POST('/api/auth/login', { body: { email, password: PASSWORD } }));
        const me = unwrap(await createApiClient({ baseUrl: apiUrl, token: session.access_token }).GET('/api/auth/me'));
        expect(me.accounts).toEqual([expect.objectContaining({ companyName: 'Dana Ceramics', role: 'owner', plan: 'pro', subscriptionStatus: 'active' })]);
        const payments = await recorded<{ customer_email?: string; status: string }[]>('payments');
        expect(payments.filter((p) => JSON.stringify(p).includes(email)).length).toBe(1);
      } finally {
        await browser.close();
      }
    },
  );
});
