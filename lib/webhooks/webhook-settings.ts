// The account's webhook URLs and signing keys. Who may read or change them
// (the account's owners, or an operator with the internal x-api-key) is the
// routes' access rule; an operator naming an account that does not exist gets
// the same 404 a stranger gets.
import type { AccountStore } from '../accounts/accounts.ts';
import { InvalidInput, NotFound, type ErrorDetail } from '../errors.ts';
import { svixKey } from './signatures.ts';
import { SIGNING_KEY_NAMES, type SigningKeyName, type WebhookIntegration, type WebhookIntegrations } from './webhook-integrations.ts';

export interface SettingsDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  integrations: WebhookIntegrations;
}

export interface WebhookSettings {
  accountId: string;
  urls: { membership: string; booking: string };
  /** Which providers' signing keys are configured (the keys themselves are never shown). */
  signingKeys: Record<SigningKeyName, boolean>;
  createdAt: string;
  rotatedAt?: string;
}

async function requireAccount(accounts: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<void> {
  if (!(await accounts.getAccount(accountId))) throw new NotFound('No such account, or not one you belong to');
}

export function settingsOf(integration: WebhookIntegration, apiOrigin: string): WebhookSettings {
  return {
    accountId: integration.accountId,
    urls: {
      membership: `${apiOrigin}/webhooks/membership/${integration.secret}`,
      booking: `${apiOrigin}/webhooks/booking/${integration.secret}`,
    },
    signingKeys: Object.fromEntries(SIGNING_KEY_NAMES.map((k) => [k, Boolean(integration.signingKeys[k])])) as Record<SigningKeyName, boolean>,
    createdAt: integration.createdAt,
    ...(integration.rotatedAt ? { rotatedAt: integration.rotatedAt } : {}),
  };
}

/** The URLs; an account that has none yet (created at sign-up, not onboarded) gets its secret now. */
export async function readWebhookSettings(deps: SettingsDeps, accountId: string, apiOrigin: string): Promise<WebhookSettings> {
  await requireAccount(deps.accounts, accountId);
  return settingsOf(await deps.integrations.ensure(accountId), apiOrigin);
}

/** A fresh secret; the old URLs answer 404 from now on. */
export async function rotateWebhookSecret(deps: SettingsDeps, accountId: string, apiOrigin: string): Promise<WebhookSettings> {
  await requireAccount(deps.accounts, accountId);
  await deps.integrations.ensure(accountId);
  return settingsOf(await deps.integrations.rotate(accountId), apiOrigin);
}

/** Sets (a string) or clears (null) the providers' signing keys; the ones not named stay as they are. */
export async function setSigningKeys(
  deps: SettingsDeps,
  accountId: string,
  changes: Partial<Record<SigningKeyName, string | null>>,
  apiOrigin: string,
): Promise<WebhookSettings> {
  await requireAccount(deps.accounts, accountId);
  const problems: ErrorDetail[] = [];
  const membership = changes.membership;
  if (typeof membership === 'string' && !svixKey(membership.trim())) {
    problems.push({ path: '/body/membership', message: 'must be the Svix signing secret, whsec_ followed by base64' });
  }
  if (problems.length) throw new InvalidInput('A signing key is not valid', problems);
  await deps.integrations.ensure(accountId);
  const trimmed = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, typeof v === 'string' ? v.trim() : v]));
  return settingsOf(await deps.integrations.setSigningKeys(accountId, trimmed), apiOrigin);
}
