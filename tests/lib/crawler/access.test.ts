import { describe, expect, it } from 'vitest';
import { requireAdmin, type AdminAccessDeps } from '../../../lib/crawler/access.ts';
import type { IdentityUser } from '../../../lib/identity/identity.ts';

const user = (id: string, appMetadata: Record<string, unknown>, userMetadata: Record<string, unknown> = {}): IdentityUser => ({
  id,
  email: `${id}@example.com`,
  emailConfirmed: true,
  appMetadata,
  userMetadata,
});
const tokens: Record<string, IdentityUser> = {
  'admin-token': user('ada', { provider: 'email', role: 'admin' }),
  'plain-token': user('bob', { provider: 'email' }),
  'self-made-token': user('eve', { provider: 'email' }, { role: 'admin' }),
};
const deps: AdminAccessDeps = { identity: { userForAccessToken: async (t) => tokens[t] }, adminApiKey: 'the-admin-key' };
const outcome = (headers: Record<string, string>) =>
  requireAdmin(deps, headers).then(
    (admin) => admin.kind,
    (e: { name: string; code: string }) => `${e.name}:${e.code}`,
  );

describe('admin access to crawler intelligence', () => {
  it('admits the admin key and users whose app_metadata says admin', async () => {
    expect(await outcome({ 'x-admin-key': 'the-admin-key' })).toBe('admin-key');
    expect(await outcome({ authorization: 'Bearer admin-token' })).toBe('user');
  });

  it('answers 401 for no credentials, a wrong key or an invalid token', async () => {
    const refused: Record<string, string>[] = [{}, { 'x-admin-key': 'wrong' }, { 'x-admin-key': '' }, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }];
    for (const headers of refused) {
      expect(await outcome(headers), JSON.stringify(headers)).toBe('Unauthenticated:unauthenticated');
    }
  });

  it('answers 403 for a signed-in user who is not an admin, including one who wrote "admin" into their own metadata', async () => {
    expect(await outcome({ authorization: 'Bearer plain-token' })).toBe('Forbidden:forbidden');
    expect(await outcome({ authorization: 'Bearer self-made-token' })).toBe('Forbidden:forbidden');
  });

  it('admits no key at all when none is configured', async () => {
    const closed = { ...deps, adminApiKey: undefined };
    await expect(requireAdmin(closed, { 'x-admin-key': '' })).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(requireAdmin(closed, { 'x-admin-key': 'undefined' })).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});
