import { randomUUID } from 'node:crypto';
import type { AccountStore, SlugRegistry } from '../accounts/accounts.ts';
import { assignPortalSlug } from '../accounts/assign-portal-slug.ts';
import { InvalidInput } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { AuthSettings } from './auth.ts';
import { hashToken, type ConsumedVerification, type VerificationTokenStore } from './verification-tokens.ts';

export interface VerifyEmailDeps {
  identity: Pick<IdentityProvider, 'confirmEmail'>;
  tokens: VerificationTokenStore;
  accounts: AccountStore;
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
 * 1. Consumes the token in one conditional write: a wrong, used or expired
 *    token is 400 and changes nothing.
 * 2. Confirms the address through the provider's admin interface.
 * 3. Finds where the user goes next: the portal page of the user's account.
 *    A user without an account whose signup named a company gets one now
 *    (account, owner member, slug reserved by the rules onboarding uses); with
 *    no company known, the portal's onboarding form is next.
 * If 2 or 3 fails, the token is given back, so the same link can be retried.
 */
export async function verifyEmail(deps: VerifyEmailDeps, token: string): Promise<EmailVerified> {
  const consumed = await deps.tokens.consume(hashToken(token), deps.now?.() ?? new Date());
  if (!consumed) throw invalidToken();
  try {
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
  let member = await deps.accounts.getMember(email);
  if (!member) {
    if (!companyName) return undefined;
    const accountId = deps.newId?.() ?? randomUUID();
    // Concurrent verifications of one address converge on whichever member was written first.
    member = (await deps.accounts.claimMember({ email, account_id: accountId, role: 'owner', name, user_id: userId })).member;
  }
  let account = await deps.accounts.getAccount(member.account_id);
  if (account?.portal_slug) return account.portal_slug;
  const company = account?.company_name ?? companyName;
  if (!company) return undefined;
  if (!account?.company_name) {
    account = await deps.accounts.saveAccountDetails(member.account_id, {
      company_name: company,
      ...(account?.contact_email ? {} : { contact_email: email }),
    });
  }
  return (await assignPortalSlug(deps, account.id, company)).portalSlug;
}
