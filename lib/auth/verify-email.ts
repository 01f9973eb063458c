import type { AccountStore, SlugRegistry } from '../accounts/accounts.ts';
import { assignPortalSlug } from '../accounts/assign-portal-slug.ts';
import { activeOnly, type MembershipStore } from '../accounts/memberships.ts';
import { openFirstAccountFor } from '../accounts/open-account.ts';
import { InvalidInput } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { AuthSettings } from './auth.ts';
import { hashToken, type ConsumedVerification, type VerificationTokenStore } from './verification-tokens.ts';

export interface VerifyEmailDeps {
  identity: Pick<IdentityProvider, 'confirmEmail'>;
  tokens: VerificationTokenStore;
  accounts: AccountStore;
  memberships: Pick<MembershipStore, 'ofUser' | 'get' | 'join'>;
  slugs: SlugRegistry;
  settings: Pick<AuthSettings, 'portalUrl'>;
  now?: () => Date;
  newId?: () => string;
}

export interface EmailVerified {
  success: true;
  email: string;
  /** Where the user goes next: the portal's /<client-slug>, or its /onboarding. */
  redirectTo: string;
  portalSlug: string | null;
}

const invalidToken = () =>
  new InvalidInput('The verification link is invalid, already used or expired', [{ path: '/body/token', message: 'is invalid, used or expired' }], 'invalid_token');

/**
 * 1. Consumes the token in one conditional write: a wrong, used, expired or
 *    contested (sign-up.ts) token is 400 and changes nothing.
 * 2. Confirms the address through the provider's admin interface.
 * 3. Finds where the user goes next: the portal page of an account they are a
 *    member of; else, if their signup named a company, an account opened now;
 *    else the portal's onboarding form.
 * If 2 or 3 fails, the token is given back, so the same link can be retried.
 */
export async function verifyEmail(deps: VerifyEmailDeps, token: string): Promise<EmailVerified> {
  const consumed = await deps.tokens.consume(hashToken(token), deps.now?.() ?? new Date());
  if (!consumed) throw invalidToken();
  try {
    // Voided links never succeed, so, like an unknown user's, they stay used.
    if (await deps.tokens.isVoided(consumed)) throw invalidToken();
    const user = await deps.identity.confirmEmail(consumed.userId);
    // The user is gone at the provider: the token can never succeed, so it stays used.
    if (!user) throw invalidToken();
    const portalSlug = await portalSlugFor(deps, consumed);
    return {
      success: true,
      email: consumed.email,
      redirectTo: portalSlug ? `${deps.settings.portalUrl}/${portalSlug}` : `${deps.settings.portalUrl}/onboarding`,
      portalSlug: portalSlug ?? null,
    };
  } catch (error) {
    if (!(error instanceof InvalidInput)) await deps.tokens.restore(consumed);
    throw error;
  }
}

async function portalSlugFor(deps: VerifyEmailDeps, verification: ConsumedVerification): Promise<string | undefined> {
  const { email, companyName, name, userId } = verification;
  const mine = activeOnly(await deps.memberships.ofUser(userId)).sort((a, b) => a.joined_at.localeCompare(b.joined_at));
  const accounts = await Promise.all(mine.map((m) => deps.accounts.getAccount(m.account_id)));
  const withSlug = accounts.find((a) => a?.portal_slug);
  if (withSlug) return withSlug.portal_slug;
  const first = accounts[0];
  if (first) return first.company_name ? (await assignPortalSlug(deps, first.id, first.company_name)).portalSlug : undefined;
  if (!companyName) return undefined;
  const account = await openFirstAccountFor(deps, { id: userId, email }, { company_name: companyName }, name);
  return (await assignPortalSlug(deps, account.id, companyName)).portalSlug;
}
