// The typed client of lib/api-client against the running API: the committed
// types are exactly what the live OpenAPI document generates, and a front
// end's journey works through it, errors included.
import { ApiError, createApiClient, unwrap, type ErrorCode } from '@onboarding-automation/api-client';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes, SCHEMA_FILE } from '../../scripts/client-generator/generate.ts';
import { fetchFrom, stack } from '../support/http.ts';
import { newEmail, PASSWORD, verificationToken } from '../support/users.ts';

describe('the typed API client', () => {
  it('is what the live OpenAPI document generates (else: npm run client, and commit it)', async () => {
    const document = (await (await fetch(`${stack().urls.api}/openapi.json`)).json()) as object;
    const generated = await clientTypes(document);
    // Compared line by line, so a failure shows where the document and the committed client differ.
    expect(generated.split('\n')).toEqual(readFileSync(SCHEMA_FILE, 'utf8').split('\n'));
  });

  it('takes a user from signup through onboarding to a checkout, with every error answered as its code', async () => {
    const fetch = fetchFrom();
    const api = createApiClient({ baseUrl: stack().urls.api, fetch });
    const email = newEmail();

    const signup = await api.POST('/api/auth/signup', { body: { email, password: PASSWORD, metadata: { name: 'Ines', companyName: 'Ines Typeface Foundry' } } });
    expect(signup.response.status).toBe(201);
    expect(signup.data).toEqual({ user: expect.objectContaining({ email, email_confirmed: false }), session: null });

    // Unverified: unwrap throws ApiError with the status and code.
    const early = await api.POST('/api/auth/login', { body: { email, password: PASSWORD } }).then(unwrap).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ApiError);
    expect(early).toMatchObject({ status: 403, code: 'email_not_confirmed', requestId: expect.any(String) });

    const verified = unwrap(await api.POST('/api/verify-email', { body: { token: await verificationToken(email) } }));
    expect(verified).toEqual({ success: true, email, redirectTo: `${stack().urls.portal}/ines-typeface-foundry`, portalSlug: 'ines-typeface-foundry' });

    // The same address again (verified, so nothing changes): the error is typed by the route's documented answers.
    const again = await api.POST('/api/auth/signup', { body: { email, password: PASSWORD } });
    expect(again.response.status).toBe(409);
    const code: ErrorCode<'/api/auth/signup', 'post'> | undefined = again.error?.error.code;
    expect(code).toBe('email_already_registered');
    expect(again.error?.requestId).toEqual(expect.any(String));

    const { session } = unwrap(await api.POST('/api/auth/login', { body: { email, password: PASSWORD } }));
    let token: string | undefined = session.access_token;
    const user = createApiClient({ baseUrl: stack().urls.api, fetch, token: () => token });
    const me = unwrap(await user.GET('/api/auth/me'));
    expect(me.accounts).toEqual([expect.objectContaining({ companyName: 'Ines Typeface Foundry', role: 'owner', plan: null, portalSlug: 'ines-typeface-foundry' })]);

    const account = unwrap(await user.GET('/api/accounts/{accountId}', { params: { path: { accountId: me.accounts[0]!.accountId } } }));
    expect(account).toMatchObject({ accountId: me.accounts[0]!.accountId, memberCount: 1 });
    expect(account.storageLink).toBeNull();

    // The portal's form, as the owner: the run provisions every integration (a 202 is followed to its end).
    const accountId = me.accounts[0]!.accountId;
    let onboarding = await user.POST('/api/onboarding-v2', { body: { email, companyName: 'Ines Typeface Foundry', accountId, website: 'ines-type.example' } });
    while (onboarding.data && 'statusUrl' in onboarding.data) {
      const { executionId } = onboarding.data;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      onboarding = await user.GET('/api/onboarding/runs/{runId}', { params: { path: { runId: executionId } } });
    }
    expect(onboarding.data).toMatchObject({ success: true, accountId, portalSlug: 'ines-typeface-foundry' });
    expect(onboarding.data && 'integrations' in onboarding.data && Object.values(onboarding.data.integrations).every((o) => o === 'success' || o === 'skipped')).toBe(true);

    const checkout = unwrap(await user.POST('/api/checkout/session', { body: { planId: 'pro', email } }));
    expect(new URL(checkout.url).origin).toBe(stack().urls.emulators);
    const provisioned = unwrap(await user.GET('/api/accounts/{accountId}', { params: { path: { accountId } } }));
    expect(provisioned).toMatchObject({ companyUrl: 'https://ines-type.example/', storageLink: expect.any(String), onboarding: { status: 'succeeded' } });

    const badPlan = await user.POST('/api/checkout/session', { body: { planId: 'platinum' as 'pro', email } });
    expect(badPlan.response.status).toBe(400);
    expect(badPlan.error?.error).toMatchObject({ code: 'invalid_request', details: [expect.objectContaining({ path: '/body/planId' })] });

    unwrap(await user.POST('/api/auth/logout'));
    const after = await user.GET('/api/auth/me');
    expect(after.response.status).toBe(401);
    expect(after.error?.error.code).toBe('unauthenticated');
    token = undefined;
    expect((await user.GET('/api/auth/me')).error?.error.code).toBe('unauthenticated');
  });
});
