// Reading and rotating an account's webhook URLs, and its signing keys. Who may (owners, or an
// operator with the internal key) is the routes' access rule, tested with the guard.
import { beforeEach, describe, expect, it } from 'vitest';
import { accountForPathSecret } from '../../../lib/webhooks/webhook-integrations.ts';
import { readWebhookSettings, rotateWebhookSecret, setSigningKeys } from '../../../lib/webhooks/webhook-settings.ts';
import { fakeAccounts } from '../../support/fakes.ts';
import { fakeWebhookIntegrations } from './fakes.ts';

const API = 'https://api.example.test';

let accounts: ReturnType<typeof fakeAccounts>;
let integrations: ReturnType<typeof fakeWebhookIntegrations>;
let deps: { accounts: typeof accounts.store; integrations: typeof integrations };

beforeEach(async () => {
  accounts = fakeAccounts();
  integrations = fakeWebhookIntegrations();
  deps = { accounts: accounts.store, integrations };
  await accounts.store.saveAccountDetails('acct', { company_name: 'Acme' });
  await accounts.store.claimMember({ email: 'owner@acme.example', account_id: 'acct', role: 'owner' });
  await accounts.store.claimMember({ email: 'staff@acme.example', account_id: 'acct', role: 'member' });
  await accounts.store.saveAccountDetails('other', { company_name: 'Other' });
  await accounts.store.claimMember({ email: 'owner@other.example', account_id: 'other', role: 'owner' });
});

describe('webhook settings', () => {
  it('give the URLs (made on first read), never the signing keys', async () => {
    const first = await readWebhookSettings(deps, 'acct', API);
    const secret = integrations.rows.get('acct')!.secret;
    expect(first).toEqual({
      accountId: 'acct',
      urls: { membership: `${API}/webhooks/membership/${secret}`, booking: `${API}/webhooks/booking/${secret}` },
      signingKeys: { membership: false, calendly: false, calcom: false },
      createdAt: expect.any(String),
    });
    expect(await readWebhookSettings(deps, 'acct', API)).toEqual(first);
  });

  it('answer 404 for an account that does not exist, and make nothing for it', async () => {
    await expect(readWebhookSettings(deps, 'no-such-account', API)).rejects.toMatchObject({ code: 'not_found' });
    await expect(rotateWebhookSecret(deps, 'no-such-account', API)).rejects.toMatchObject({ code: 'not_found' });
    expect(integrations.rows.size).toBe(0);
  });

  it('rotate the secret: the new URLs work and the old ones stop at once', async () => {
    const before = await readWebhookSettings(deps, 'acct', API);
    const after = await rotateWebhookSecret(deps, 'acct', API);
    expect(after.urls.booking).not.toBe(before.urls.booking);
    expect(after.rotatedAt).toEqual(expect.any(String));
    const secretOf = (url: string) => url.split('/').at(-1)!;
    expect((await accountForPathSecret({ integrations, accounts: { getAccount: async () => undefined } }, secretOf(after.urls.booking))).accountId).toBe('acct');
    await expect(accountForPathSecret({ integrations, accounts: { getAccount: async () => undefined } }, secretOf(before.urls.booking))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('set and clear signing keys, refusing a membership key that is not a Svix secret', async () => {
    const set = await setSigningKeys(deps, 'acct', { membership: ' whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ', calendly: 'ck' }, API);
    expect(set.signingKeys).toEqual({ membership: true, calendly: true, calcom: false });
    expect((await integrations.get('acct'))!.signingKeys).toEqual({ membership: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', calendly: 'ck' });
    expect(JSON.stringify(set)).not.toContain('ck"');
    expect((await setSigningKeys(deps, 'acct', { calendly: null }, API)).signingKeys).toEqual({ membership: true, calendly: false, calcom: false });
    await expect(setSigningKeys(deps, 'acct', { membership: 'not-a-svix-secret' }, API)).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/membership', message: 'must be the Svix signing secret, whsec_ followed by base64' }],
    });
  });
});
