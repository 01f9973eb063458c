// verifyEmail against in-memory fakes: the token is consumed once, the user is
// confirmed, and the answer says where the user goes next.
import { describe, expect, it } from 'vitest';
import { hashToken, newVerificationToken } from '../../../lib/auth/verification-tokens.ts';
import { verifyEmail, type VerifyEmailDeps } from '../../../lib/auth/verify-email.ts';
import { VendorError } from '../../../lib/errors.ts';
import { firstAccountIdOf } from '../../../lib/accounts/open-account.ts';
import { fakeMemberships } from '../../support/account-fakes.ts';
import { FakeIdentity, MemoryTokens, settings } from '../../support/auth-fakes.ts';
import { fakeAccounts, fakeSlugs } from '../../support/fakes.ts';

const NOW = new Date('2026-05-01T10:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

function setup() {
  const identity = new FakeIdentity();
  const tokens = new MemoryTokens();
  const stores = fakeAccounts();
  const slugs = fakeSlugs();
  const memberships = fakeMemberships();
  let ids = 0;
  const deps: VerifyEmailDeps & { identity: FakeIdentity; tokens: MemoryTokens } = {
    identity,
    tokens,
    accounts: stores.store,
    memberships,
    slugs,
    settings,
    now: () => NOW,
    newId: () => `acct-${++ids}`,
  };
  return { deps, stores, slugs, memberships };
}

async function pendingSignup(deps: ReturnType<typeof setup>['deps'], email: string, companyName?: string, expiresAt = nowSeconds + 3600) {
  const user = deps.identity.addUser(email, 'Secret123', false, companyName ? { companyName } : {});
  const token = newVerificationToken();
  await deps.tokens.save({ tokenHash: hashToken(token), userId: user.id, email, companyName, name: 'Ada', createdAt: NOW.toISOString(), expiresAt });
  return { token, user };
}

describe('verifying an e-mail address', () => {
  it('confirms the user, creates the account with a slug from the company, and sends the user to it', async () => {
    const { deps, stores, slugs, memberships } = setup();
    const { token, user } = await pendingSignup(deps, 'ada@example.com', 'Café Ünïcorn & Co.');
    const accountId = firstAccountIdOf(user.id);
    expect(await verifyEmail(deps, token)).toEqual({
      success: true,
      email: 'ada@example.com',
      redirectTo: 'https://portal.test/cafe-unicorn-and-co',
      portalSlug: 'cafe-unicorn-and-co',
    });
    expect(user.confirmed).toBe(true);
    expect(await memberships.get(accountId, user.id)).toMatchObject({ role: 'owner', status: 'active', joined_via: 'created' });
    expect(stores.members.of(accountId, 'ada@example.com')).toMatchObject({ account_id: accountId, role: 'owner', user_id: user.id, name: 'Ada', status: 'provisioning' });
    expect(stores.accounts.get(accountId)).toMatchObject({
      company_name: 'Café Ünïcorn & Co.',
      contact_email: 'ada@example.com',
      status: 'provisioning',
      portal_slug: 'cafe-unicorn-and-co',
    });
    expect(slugs.owners.get('cafe-unicorn-and-co')).toBe(accountId);
  });

  it('gives two companies of the same name different slugs, by the onboarding rules', async () => {
    const { deps } = setup();
    const first = await pendingSignup(deps, 'a@example.com', 'Acme');
    const second = await pendingSignup(deps, 'b@example.com', 'Acme');
    expect((await verifyEmail(deps, first.token)).portalSlug).toBe('acme');
    expect((await verifyEmail(deps, second.token)).portalSlug).toBe('acme-2');
  });

  it("sends a user without a known company to the portal's onboarding, creating nothing", async () => {
    const { deps, stores } = setup();
    const { token, user } = await pendingSignup(deps, 'solo@example.com');
    expect(await verifyEmail(deps, token)).toEqual({
      success: true,
      email: 'solo@example.com',
      redirectTo: 'https://portal.test/onboarding',
      portalSlug: null,
    });
    expect(user.confirmed).toBe(true);
    expect(stores.members.size).toBe(0);
    expect(stores.accounts.size).toBe(0);
  });

  it("sends a user who is a member of an account to that account's slug", async () => {
    const { deps, stores, memberships } = setup();
    await stores.store.saveAccountDetails('existing', { company_name: 'Globex' });
    await stores.store.setPortalSlugOnce('existing', 'globex');
    const { token, user } = await pendingSignup(deps, 'hank@example.com', 'Something Else');
    await memberships.join({ accountId: 'existing', userId: user.id, email: 'hank@example.com', role: 'member', via: 'invitation' });
    expect((await verifyEmail(deps, token)).redirectTo).toBe('https://portal.test/globex');
    expect(stores.accounts.size).toBe(1);
  });

  it("never sends anyone to an account because someone else wrote their address into it", async () => {
    const { deps, stores, memberships } = setup();
    // Mallory's membership sync left a member record for the stranger's address in her account.
    await stores.store.saveAccountDetails('mallory', { company_name: 'Mallory Ltd' });
    await stores.store.setPortalSlugOnce('mallory', 'mallory-ltd');
    await stores.store.claimMember({ email: 'ceo@bigcorp.example', account_id: 'mallory', role: 'member' });
    const { token, user } = await pendingSignup(deps, 'ceo@bigcorp.example', 'BigCorp');
    const verified = await verifyEmail(deps, token);
    expect(verified.redirectTo).toBe('https://portal.test/bigcorp');
    expect(await memberships.ofUser(user.id)).toEqual([expect.objectContaining({ account_id: firstAccountIdOf(user.id), role: 'owner' })]);
  });

  it('refuses a wrong token with 400 and changes nothing', async () => {
    const { deps, stores } = setup();
    const { user } = await pendingSignup(deps, 'ada@example.com', 'Acme');
    await expect(verifyEmail(deps, 'not-the-token')).rejects.toMatchObject({ code: 'invalid_token' });
    expect(user.confirmed).toBe(false);
    expect(stores.accounts.size).toBe(0);
  });

  it('refuses a used token the second time', async () => {
    const { deps } = setup();
    const { token } = await pendingSignup(deps, 'ada@example.com', 'Acme');
    await verifyEmail(deps, token);
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses an expired token and leaves the user unconfirmed', async () => {
    const { deps } = setup();
    const { token, user } = await pendingSignup(deps, 'ada@example.com', 'Acme', nowSeconds);
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(user.confirmed).toBe(false);
  });

  it('gives the token back when the provider fails, so the same link works on a retry', async () => {
    const { deps } = setup();
    const { token, user } = await pendingSignup(deps, 'ada@example.com', 'Acme');
    deps.identity.failNext = true;
    await expect(verifyEmail(deps, token)).rejects.toBeInstanceOf(VendorError);
    expect(user.confirmed).toBe(false);
    expect((await verifyEmail(deps, token)).portalSlug).toBe('acme');
  });

  it('keeps the token used when the user no longer exists at the provider', async () => {
    const { deps } = setup();
    const { token } = await pendingSignup(deps, 'ada@example.com', 'Acme');
    deps.identity.users = [];
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect([...deps.tokens.rows.values()][0]!.usedAt).toBeDefined();
  });
});

describe('verifying with a link issued before a later signup contested the registration', () => {
  it('400 invalid_token, confirming nobody and opening no account; the token stays used', async () => {
    const { deps, stores } = setup();
    const { token, user } = await pendingSignup(deps, 'victim@example.com', 'Mallory Ltd');
    await deps.tokens.voidLinksOf(user.id, new Date(NOW.getTime() + 1000), nowSeconds + 24 * 3600);
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(user.confirmed).toBe(false);
    expect(stores.accounts.size).toBe(0);
    expect([...deps.tokens.rows.values()][0]!.usedAt).toBeDefined();
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('voids a link issued at the very time of the contest too, and none of another user', async () => {
    const { deps } = setup();
    const { token, user } = await pendingSignup(deps, 'victim@example.com');
    const other = await pendingSignup(deps, 'other@example.com');
    await deps.tokens.voidLinksOf(user.id, NOW, nowSeconds + 24 * 3600);
    await expect(verifyEmail(deps, token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await verifyEmail(deps, other.token)).toMatchObject({ success: true, email: 'other@example.com' });
  });

  it('gives the token back when whether it was voided cannot be read, so the same link can be retried', async () => {
    const { deps } = setup();
    const { token, user } = await pendingSignup(deps, 'ada@example.com');
    const isVoided = deps.tokens.isVoided.bind(deps.tokens);
    deps.tokens.isVoided = async () => {
      throw new Error('DynamoDB unavailable');
    };
    await expect(verifyEmail(deps, token)).rejects.toThrow('DynamoDB unavailable');
    expect([...deps.tokens.rows.values()][0]!.usedAt).toBeUndefined();
    deps.tokens.isVoided = isVoided;
    expect(await verifyEmail(deps, token)).toMatchObject({ success: true });
    expect(user.confirmed).toBe(true);
  });
});
