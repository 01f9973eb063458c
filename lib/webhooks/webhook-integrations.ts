// The account's webhook settings as the webhooks see them: its path secret
// (the integration row of lib/accounts/integrations.ts, indexed by SHA-256 in
// webhook_secrets) and the providers' signing keys it configured, kept in
// the index entry of its current secret, so that an inbound webhook learns
// both the account and the keys from the one row its secret names.
import type { AccountStore } from '../accounts/accounts.ts';
import { hashSecret } from '../accounts/integrations.ts';
import { isAccountOpen } from '../accounts/lifecycle.ts';
import { Gone, NotFound } from '../errors.ts';

export const SIGNING_KEY_NAMES = ['membership', 'calendly', 'calcom'] as const;
export type SigningKeyName = (typeof SIGNING_KEY_NAMES)[number];
export type SigningKeys = Partial<Record<SigningKeyName, string>>;

export interface WebhookIntegration {
  accountId: string;
  secret: string;
  signingKeys: SigningKeys;
  createdAt: string;
  rotatedAt?: string;
}

/** What an inbound delivery needs to know: whose webhook it reached, and which signatures to ask for. */
export interface InboundWebhook {
  accountId: string;
  signingKeys: SigningKeys;
}

export interface WebhookIntegrations {
  /** The webhook whose active secret has this SHA-256, in one read; undefined for unknown, revoked and not yet active ones. */
  inboundFor(secretHash: string): Promise<InboundWebhook | undefined>;
  get(accountId: string): Promise<WebhookIntegration | undefined>;
  /** The account's integration, created with a fresh secret if it has none yet. */
  ensure(accountId: string): Promise<WebhookIntegration>;
  /** Replaces the secret with a fresh one; the old one is refused from the moment this returns. */
  rotate(accountId: string): Promise<WebhookIntegration>;
  /** Sets (string) or clears (null) signing keys; keys not named are left as they are. */
  setSigningKeys(accountId: string, changes: Partial<Record<SigningKeyName, string | null>>): Promise<WebhookIntegration>;
}

/** Secrets are 32 random bytes in base64url (newWebhookSecret): 43 characters, nothing else. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Unknown, revoked, truncated and wrong secrets all get this same answer. */
export const noWebhookHere = () => new NotFound('There is no webhook at this address');

/**
 * The webhook a path secret opens. Found by the secret's SHA-256, which only
 * the account's current secret has as an active entry: a rotated-out secret's
 * entry is revoked, and a rotation's new one is pending until it takes over.
 */
export async function accountForPathSecret(
  deps: { integrations: Pick<WebhookIntegrations, 'inboundFor'>; accounts: Pick<AccountStore, 'getAccount'> },
  presented: string | undefined,
): Promise<InboundWebhook> {
  if (!presented || !SECRET_SHAPE.test(presented)) throw noWebhookHere();
  const inbound = await deps.integrations.inboundFor(hashSecret(presented));
  if (!inbound) throw noWebhookHere();
  // A closing or closed account takes nothing: 410 tells a provider to stop sending (its webhook is gone, not broken).
  const account = await deps.accounts.getAccount(inbound.accountId);
  if (account && !isAccountOpen(account.status)) throw new Gone('This account is closed: its webhooks take nothing', 'account_closed');
  return inbound;
}
