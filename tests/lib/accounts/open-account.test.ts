// Opening an account, against in-memory ports: the first is at the user's
// first-account id only while they have no membership there.
import { describe, expect, it } from 'vitest';
import { firstAccountIdOf, openAccountFor, openFirstAccountFor } from '../../../lib/accounts/open-account.ts';
import { fakeMemberships, user } from '../../support/account-fakes.ts';
import { MemoryRateLimiter } from '../../support/auth-fakes.ts';
import { fakeAccounts } from '../../support/fakes.ts';

function setup() {
  const accounts = fakeAccounts();
  const memberships = fakeMemberships();
  let n = 0;
  const deps = { accounts: accounts.store, memberships, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  return { deps, accounts, memberships };
}

describe('opening an account', () => {
  it('is at the first-account id for a user with no membership there, and finishes a half-done opening', async () => {
    const s = setup();
    const ann = user();
    const first = firstAccountIdOf(ann.id);
    // Half done: the account saved, its owner not yet joined.
    await s.accounts.store.saveAccountDetails(first, { company_name: 'Acme', created_by: ann.id });
    expect((await openAccountFor(s.deps, ann, { company_name: 'Acme' })).id).toBe(first);
    expect(await s.memberships.get(first, ann.id)).toMatchObject({ role: 'owner', status: 'active', joined_via: 'created' });
    expect(s.accounts.accounts.size).toBe(1);
  });

  it('never rewrites an account the user has a membership of: demoted, still its owner, or removed, they get a fresh one they own', async () => {
    const s = setup();
    const ann = user();
    const first = firstAccountIdOf(ann.id);
    await openAccountFor(s.deps, ann, { company_name: 'Acme' });
    const bo = user();
    await s.memberships.join({ accountId: first, userId: bo.id, email: bo.email, role: 'owner', via: 'invitation' });
    const seen = () => ({ ...s.accounts.accounts.get(first), updated_at: undefined });
    const before = seen();

    const asOwner = await openAccountFor(s.deps, ann, { company_name: 'Second' });
    expect(await s.memberships.setRole(first, ann.id, 'owner', 'member')).toBe('changed');
    const asMember = await openAccountFor(s.deps, ann, { company_name: 'Hijacked Ltd' });
    expect(await s.memberships.remove(first, ann.id, 'member')).toBe('changed');
    const asRemoved = await openAccountFor(s.deps, ann, { company_name: 'Third' });

    expect(new Set([first, asOwner.id, asMember.id, asRemoved.id]).size).toBe(4);
    expect(seen()).toEqual(before);
    for (const opened of [asOwner, asMember, asRemoved]) {
      expect(opened).toMatchObject({ created_by: ann.id, contact_email: ann.email });
      expect(await s.memberships.get(opened.id, ann.id)).toMatchObject({ role: 'owner', status: 'active' });
    }
  });

  it('on request, at most the opening limit per person and window: past it 429, nothing made', async () => {
    const s = setup();
    const ann = user();
    const deps = { ...s.deps, openingLimit: { limiter: new MemoryRateLimiter(), limit: { limit: 2, windowSeconds: 86_400 } } };
    await openAccountFor(deps, ann, { company_name: 'One' });
    await openAccountFor(deps, ann, { company_name: 'Two' });
    await expect(openAccountFor(deps, ann, { company_name: 'Three' })).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 86_400 });
    expect(s.accounts.accounts.size).toBe(2);
    expect((await openAccountFor(deps, user(), { company_name: 'Someone else' })).company_name).toBe('Someone else');
  });

  it('without asking (verification, checkout, onboarding): openings of one user at once make one account, also when one finishes before the next starts', async () => {
    const s = setup();
    const ann = user();
    const together = await Promise.all([openFirstAccountFor(s.deps, ann), openFirstAccountFor(s.deps, ann), openFirstAccountFor(s.deps, ann)]);
    const after = await openFirstAccountFor(s.deps, ann);
    expect(new Set([...together, after].map((a) => a.id))).toEqual(new Set([firstAccountIdOf(ann.id)]));
    expect(s.accounts.accounts.size).toBe(1);
    // A creator who is no longer its owner opens a fresh one.
    const bo = user();
    await s.memberships.join({ accountId: after.id, userId: bo.id, email: bo.email, role: 'owner', via: 'invitation' });
    await s.memberships.setRole(after.id, ann.id, 'owner', 'member');
    expect((await openFirstAccountFor(s.deps, ann)).id).not.toBe(after.id);
  });
});
