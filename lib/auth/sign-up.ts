import { randomBytes, randomUUID } from 'node:crypto';
import { normaliseEmail } from '../accounts/accounts.ts';
import { Conflict, InvalidInput, VendorError } from '../errors.ts';
import type { IdentityProvider } from '../identity/identity.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { Logger } from '../log.ts';
import { enforceRateLimits, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rule, toPublicUser, type AuthSettings, type PublicUser } from './auth.ts';
import { unfinishedSignupEmail, verificationEmail } from './emails.ts';
import { assertPasswordAcceptable, passwordRefusedByProvider } from './password-policy.ts';
import { hashToken, newVerificationToken, type VerificationTokenStore } from './verification-tokens.ts';

export interface SignUpDeps {
  identity: Pick<IdentityProvider, 'register' | 'deleteUser' | 'canCreateRecoveryLinks' | 'userByEmail' | 'setPasswordAsAdmin' | 'createRecoveryLink' | 'signIn'>;
  tokens: Pick<VerificationTokenStore, 'save' | 'voidLinksOf'>;
  mailer: Mailer;
  limiter: RateLimiter;
  settings: AuthSettings;
  log: Logger;
  now?: () => Date;
}

export interface SignUpRequest {
  email: string;
  password: string;
  metadata?: { name?: string; companyName?: string };
  clientIp: string;
}

/**
 * 1. Checks the password rule (400 weak_password) before anything is counted.
 * 2. Counts the attempt per client IP and per address (429).
 * 3. Registers the user; a taken address is 409, however the provider says it.
 *    An unconfirmed one registered with this very password gets its e-mail
 *    again; with another password it is contested (repeatOrContest).
 * 4. Stores a new verification token (its hash) and e-mails {portal}/verify?token=….
 * 5. If 4 fails, the user this request created is deleted before the error is
 *    answered: left unconfirmed, it would block every later signup and login.
 * The session stays null until the address is verified and the user logs in.
 */
export async function signUp(deps: SignUpDeps, request: SignUpRequest): Promise<{ user: PublicUser; session: null }> {
  const email = normaliseEmail(request.email);
  const { rateLimits } = deps.settings;
  // Refused before it is counted: someone else's weak-password attempts must not use up the address's signups.
  assertPasswordAcceptable(request.password);
  await enforceRateLimits(deps.limiter, [
    { rule: rule('signup-ip', rateLimits.signup), subject: request.clientIp },
    { rule: rule('signup-email', rateLimits.perEmail), subject: email },
  ]);

  const metadata = definedStrings({ name: request.metadata?.name?.trim(), companyName: request.metadata?.companyName?.trim() });
  const registration = await deps.identity.register({ email, password: request.password, metadata });
  if (registration.outcome === 'already-registered') {
    await repeatOrContest(deps, { email, password: request.password, metadata });
    throw new Conflict('An account with this e-mail address already exists', 'email_already_registered');
  }
  if (registration.outcome === 'weak-password') throw passwordRefusedByProvider();
  if (registration.outcome === 'invalid-email') {
    throw new InvalidInput('The identity provider refused this e-mail address', [{ path: '/body/email', message: 'is not accepted' }]);
  }
  if (registration.outcome === 'address-not-authorized') {
    // A deployment whose Supabase project still uses the built-in mailer (docs/deploying.md).
    deps.log.warn('the identity provider may not e-mail this address: configure SMTP or a Send Email hook', { emailDomain: email.split('@')[1] });
    throw new InvalidInput(
      'The identity provider cannot send e-mail to this address',
      [{ path: '/body/email', message: 'is not authorized by the identity provider' }],
      'email_address_not_authorized',
    );
  }

  try {
    await sendVerification(deps, registration.user.id, email, metadata);
  } catch (error) {
    await undoRegistration(deps, registration.user.id);
    throw error;
  }

  return { user: toPublicUser(registration.user), session: null };
}

/** Stores a new verification token (its hash) with an expiry, and e-mails the link {portal}/verify?token=<token>. */
async function sendVerification(deps: SignUpDeps, userId: string, email: string, metadata: Record<string, string>): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const token = newVerificationToken();
  await deps.tokens.save({
    tokenHash: hashToken(token),
    userId,
    email,
    ...metadata,
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + deps.settings.verificationTtlHours * 3600,
  });

  const link = `${deps.settings.portalUrl}/verify?token=${token}`;
  await deps.mailer.send({
    to: email,
    ...verificationEmail(link, deps.settings.verificationTtlHours, metadata.name),
    // One key per token: the mailer's retries of this send never deliver it twice.
    idempotencyKey: `verify-email/${hashToken(token).slice(0, 32)}`,
    kind: 'verify-email',
  });
}

/**
 * A signup of an address already registered and unconfirmed. With the very
 * password it was registered with, it is the same person sending the form
 * again (a double click, a second try before the e-mail arrived): they get
 * the verification e-mail again, and nothing is contested. The provider
 * checks the password before it says the address is unconfirmed (token.go,
 * supabase/auth: "Email not confirmed" answers only the right password), so
 * that answer is the proof. Any other password contests the registration.
 */
async function repeatOrContest(deps: SignUpDeps, repeat: { email: string; password: string; metadata: Record<string, string> }): Promise<void> {
  if (!deps.identity.canCreateRecoveryLinks) return;
  const holder = await deps.identity.userByEmail(repeat.email);
  if (!holder || holder.emailConfirmed) return;
  if ((await deps.identity.signIn(repeat.email, repeat.password)).outcome === 'email-not-confirmed') {
    deps.log.info('a signup repeated an unfinished registration with its own password: its verification e-mail was sent again', { userId: holder.id });
    await sendVerification(deps, holder.id, repeat.email, repeat.metadata);
    return;
  }
  await contestUnfinished(deps, repeat.email, holder.id);
}

/**
 * A signup meeting an unconfirmed registration of its address with another
 * password contests it: whoever registered first may not read the mailbox,
 * and the first link would confirm the address with their password. So every
 * earlier link is void, the password is replaced by one nobody knows, and the
 * mailbox gets a recovery link to choose it (opening it confirms the address:
 * recoverVerify, supabase/auth internal/api/verify.go). The answer stays 409.
 * Only with the admin interface; without it the provider keeps the first
 * password (signup.go) and the user cannot be looked up (docs/deploying.md).
 */
async function contestUnfinished(deps: SignUpDeps, email: string, holderId: string): Promise<void> {
  const now = deps.now?.() ?? new Date();
  // Kept until every link issued so far has expired anyway.
  await deps.tokens.voidLinksOf(holderId, now, Math.floor(now.getTime() / 1000) + deps.settings.verificationTtlHours * 3600);
  // Before the recovery link: a new password spends the provider's links still out (UpdatePassword, models/user.go).
  const replaced = await deps.identity.setPasswordAsAdmin(holderId, unknowablePassword());
  if (replaced !== 'changed') {
    throw new VendorError('supabase', `supabase: the password of an unfinished registration could not be replaced (${replaced})`, {
      transient: true,
      operation: 'replace the password of an unfinished registration',
    });
  }
  const link = await deps.identity.createRecoveryLink(email, deps.settings.passwordResetRedirect);
  if (!link) return;
  deps.log.info('a signup contested an unfinished registration: its links are void, its mailbox is asked to choose the password', { userId: holderId });
  await deps.mailer.send({
    to: email,
    ...unfinishedSignupEmail(link, Math.round(deps.settings.recoveryTtlSeconds / 60)),
    idempotencyKey: `finish-signup/${randomUUID()}`,
    kind: 'finish-signup',
  });
}

/** 32 random bytes, with a character of each class a provider's password rule may ask for. */
const unknowablePassword = () => `${randomBytes(32).toString('base64url')}aA1!`;

async function undoRegistration(deps: Pick<SignUpDeps, 'identity' | 'log'>, userId: string): Promise<void> {
  try {
    await deps.identity.deleteUser(userId);
  } catch (error) {
    // Without the service-role key (or with the provider down) the user stays, unconfirmed; an operator has to delete it.
    deps.log.error('a failed signup left its user registered at the identity provider', { userId, error });
  }
}

function definedStrings(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => Boolean(entry[1])));
}
