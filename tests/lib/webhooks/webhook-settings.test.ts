// Reading and rotating an account's webhook URLs, and its signing keys, by its owner or an operator.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../lib/onboarding/access.ts';
import { accountForPathSecret } from '../../../lib/webhooks/webhook-integrations.ts';
import { readWebhookSettings, rotateWebhookSecret, setSigningKeys } from '../../../lib/webhooks/webhook-settings.ts';
import { fakeAccounts } from '../../support/fakes.ts';
import { fakeWebhookIntegrations } from './fakes.ts';

const API = 'https://api.example.test';
const operator: Caller = { kind: 'service' };
const user = (email: string): Caller => ({ kind: 'user', email, userId: `u-${email}` });

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
  it('give the owner and an operator the URLs (made on first read), never the signing keys', async () => {
    const first = await readWebhookSettings(deps, user('owner@acme.example'), 'acct', API);
    const secret = integrations.rows.get('acct')!.secret;
    expect(first).toEqual({
      accountId: 'acct',
      urls: { membership: `${API}/webhooks/membership/${secret}`, booking: `${API}/webhooks/booking/${secret}` },
      signingKeys: { membership: false, calendly: false, calcom: false },
      createdAt: expect.any(String),
    });
    expect(await readWebhookSettings(deps, operator, 'acct', API)).toEqual(first);
  });

  it('tell no one else whether the account exists: 404, and 403 for a member who is not the owner', async () => {
    await expect(readWebhookSettings(deps, user('owner@other.example'), 'acct', API)).rejects.toMatchObject({ code: 'not_found' });
    await expect(readWebhookSettings(deps, user('stranger@example.com'), 'acct', API)).rejects.toMatchObject({ code: 'not_found' });
    await expect(readWebhookSettings(deps, operator, 'no-such-account', API)).rejects.toMatchObject({ code: 'not_found' });
    await expect(readWebhookSettings(deps, user('staff@acme.example'), 'acct', API)).rejects.toMatchObject({ code: 'forbidden' });
    await accounts.store.setMemberStatusForAccount('acct', 'removed');
    await expect(readWebhookSettings(deps, user('owner@acme.example'), 'acct', API)).rejects.toMatchObject({ code: 'not_found' });
    expect(integrations.rows.size).toBe(0);
  });

  it('rotate the secret: the new URLs work and the old ones stop at once', async () => {
    const before = await readWebhookSettings(deps, operator, 'acct', API);
    const after = await rotateWebhookSecret(deps, user('owner@acme.example'), 'acct', API);
    expect(after.urls.booking).not.toBe(before.urls.booking);
    expect(after.rotatedAt).toEqual(expect.any(String));
    const secretOf = (url: string) => url.split('/').at(-1)!;
    expect((await accountForPathSecret(integrations, secretOf(after.urls.booking))).accountId).toBe('acct');
    await expect(accountForPathSecret(integrations, secretOf(before.urls.booking))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('set and clear signing keys, refusing a membership key that is not a Svix secret', async () => {
    const set = await setSigningKeys(deps, operator, 'acct', { membership: ' whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ', calendly: 'ck' }, API);
    expect(set.signingKeys).toEqual({ membership: true, calendly: true, calcom: false });
    expect((await integrations.get('acct'))!.signingKeys).toEqual({ membership: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', calendly: 'ck' });
    expect(JSON.stringify(set)).not.toContain('ck"');
    expect((await setSigningKeys(deps, operator, 'acct', { calendly: null }, API)).signingKeys).toEqual({ membership: true, calendly: false, calcom: false });
    await expect(setSigningKeys(deps, operator, 'acct', { membership: 'not-a-svix-secret' }, API)).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/membership', message: 'must be the Svix signing secret, whsec_ followed by base64' }],
    });
    await expect(setSigningKeys(deps, user('staff@acme.example'), 'acct', { calcom: 'x' }, API)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
