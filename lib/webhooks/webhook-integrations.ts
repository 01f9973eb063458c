// The account's webhook settings as the webhooks see them: its path secret
// (the integration row of lib/accounts/integrations.ts, indexed by SHA-256 in
// webhook_secrets) and the providers' signing keys it configured.
import { hashSecret } from '../accounts/integrations.ts';
import { NotFound } from '../errors.ts';
import { secretsEqual } from '../http/credentials.ts';

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

export interface WebhookIntegrations {
  /** The account whose active secret has this SHA-256; undefined for unknown and revoked ones. */
  accountForSecretHash(secretHash: string): Promise<string | undefined>;
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
 * The account a path secret belongs to. Found by the secret's SHA-256, then
 * compared in constant time with the account's current secret, so an index
 * entry left behind by an interrupted rotation opens nothing.
 */
export async function accountForPathSecret(integrations: WebhookIntegrations, presented: string | undefined): Promise<WebhookIntegration> {
  if (!presented || !SECRET_SHAPE.test(presented)) throw noWebhookHere();
  const accountId = await integrations.accountForSecretHash(hashSecret(presented));
  const integration = accountId ? await integrations.get(accountId) : undefined;
  if (!integration || !secretsEqual(presented, integration.secret)) throw noWebhookHere();
  return integration;
}
