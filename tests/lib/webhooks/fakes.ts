// In-memory ports of the webhooks, for use-case tests. Like tests/support/fakes.ts,
// each keeps what it was asked to do, so tests assert on state left behind.
import type { Member } from '../../../lib/accounts/accounts.ts';
import { hashSecret, newWebhookSecret } from '../../../lib/accounts/integrations.ts';
import type { MemberRecords } from '../../support/fakes.ts';
import type { MembershipMembers } from '../../../lib/webhooks/membership-members.ts';
import type { MembershipMember } from '../../../lib/webhooks/membership-state.ts';
import type { SigningKeyName, SigningKeys, WebhookIntegration, WebhookIntegrations } from '../../../lib/webhooks/webhook-integrations.ts';

/**
 * Webhook settings as dynamodbWebhookIntegrations keeps them: the account's
 * row (its current secret) and, per secret hash, an index entry holding the
 * account, whether it is active, and the signing keys, which a rotation
 * carries over to the new secret's entry.
 */
export function fakeWebhookIntegrations() {
  const rows = new Map<string, Omit<WebhookIntegration, 'signingKeys'>>();
  const index = new Map<string, { accountId: string; active: boolean; signingKeys: SigningKeys }>();
  const view = (accountId: string): WebhookIntegration | undefined => {
    const row = rows.get(accountId);
    return row && structuredClone({ ...row, signingKeys: index.get(hashSecret(row.secret))!.signingKeys });
  };
  const store: WebhookIntegrations & { rows: typeof rows; index: typeof index } = {
    rows,
    index,
    async inboundFor(hash) {
      const entry = index.get(hash);
      return entry?.active ? { accountId: entry.accountId, signingKeys: { ...entry.signingKeys } } : undefined;
    },
    get: async (accountId) => view(accountId),
    async ensure(accountId) {
      if (!rows.has(accountId)) {
        const secret = newWebhookSecret();
        rows.set(accountId, { accountId, secret, createdAt: new Date().toISOString() });
        index.set(hashSecret(secret), { accountId, active: true, signingKeys: {} });
      }
      return view(accountId)!;
    },
    async rotate(accountId) {
      const row = rows.get(accountId)!;
      const old = index.get(hashSecret(row.secret))!;
      const secret = newWebhookSecret();
      index.set(hashSecret(secret), { accountId, active: true, signingKeys: old.signingKeys });
      index.set(hashSecret(row.secret), { ...old, active: false });
      rows.set(accountId, { ...row, secret, rotatedAt: new Date().toISOString() });
      return view(accountId)!;
    },
    async setSigningKeys(accountId, changes) {
      const entry = index.get(hashSecret(rows.get(accountId)!.secret))!;
      const keys: SigningKeys = { ...entry.signingKeys };
      for (const [k, v] of Object.entries(changes) as [SigningKeyName, string | null | undefined][]) {
        if (v === null) delete keys[k];
        else if (v !== undefined) keys[k] = v;
      }
      entry.signingKeys = keys;
      return view(accountId)!;
    },
  };
  return store;
}

/** Membership writes over the same member records as fakeAccounts, so onboarding sees the members the webhook made. */
export function fakeMembershipMembers(members: MemberRecords): MembershipMembers {
  const of = (accountId: string, email: string) => members.of(accountId, email) as (MembershipMember & Partial<Member>) | undefined;
  const put = (record: MembershipMember) => members.put(record as Member);
  return {
    get: async (accountId, email) => structuredClone(of(accountId, email)),
    async save(member, changes, create) {
      const current = of(member.account_id, member.email);
      if (create) {
        if (current) return false;
        put({ ...structuredClone(member), membership_version: 1 });
        return true;
      }
      if (!current || current.membership_version !== member.membership_version) return false;
      put({ ...current, ...changes, membership: structuredClone(member.membership), membership_version: (current.membership_version ?? 0) + 1 } as MembershipMember);
      return true;
    },
    async markOnboardingStarted(accountId, email, runId) {
      const current = of(accountId, email)!;
      put({ ...current, membership: { ...current.membership!, onboarding_run: runId }, membership_version: (current.membership_version ?? 0) + 1 });
    },
  };
}
