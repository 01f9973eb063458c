import { NotFound } from '../errors.ts';
import type { AccountStore, SlugRegistry } from './accounts.ts';
import { slugCandidates, slugify } from './slug.ts';

export interface PortalSlugs {
  portalSlug: string;
  dashboardSlug: string;
}

const MAX_CLAIMS = 64;

/**
 * Gives the account a unique portal slug from its company name, once.
 * 1. An account that has a slug keeps it.
 * 2. Otherwise candidates are reserved by conditional write until one is ours;
 *    twenty concurrent "Acme"s therefore end with twenty different slugs.
 * 3. The slug is set on the account only if it still has none; if a concurrent
 *    run for the same account got there first, ours is given back.
 */
export async function assignPortalSlug(
  deps: { accounts: AccountStore; slugs: SlugRegistry },
  accountId: string,
  companyName?: string,
): Promise<PortalSlugs> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new NotFound(`Account ${accountId} does not exist`);
  if (account.portal_slug) return { portalSlug: account.portal_slug, dashboardSlug: account.dashboard_slug ?? account.portal_slug };

  let claims = 0;
  for (const candidate of slugCandidates(slugify(companyName ?? account.company_name ?? ''))) {
    if (++claims > MAX_CLAIMS) throw new Error(`No free slug found for account ${accountId} after ${MAX_CLAIMS} tries`);
    if (!(await deps.slugs.reserve(candidate, accountId))) continue;
    const kept = await deps.accounts.setPortalSlugOnce(accountId, candidate);
    if (kept !== candidate) await deps.slugs.release(candidate, accountId);
    return { portalSlug: kept, dashboardSlug: kept };
  }
  throw new Error('unreachable');
}
