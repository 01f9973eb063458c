import type { AccountStore } from '../accounts/accounts.ts';
import type { InvitationStore } from '../accounts/invitations.ts';
import type { LifecycleStore } from '../accounts/lifecycle.ts';
import { ACCOUNT_CLOSED } from '../accounts/team.ts';
import type { RunStore } from '../provisioning/runs.ts';
import { isLiveSubscription } from '../payments/payments.ts';

export interface BeginDeps {
  accounts: Pick<AccountStore, 'getAccount'>;
  lifecycle: Pick<LifecycleStore, 'begin'>;
  invitations: Pick<InvitationStore, 'ofAccount' | 'revoke'>;
  runs: Pick<RunStore, 'saveResult'>;
  now?: () => Date;
}

/**
 * The offboarding run's first step, once its time has come. It goes on only
 * while it is still the account's recorded offboarding and, for a
 * subscription's end, the subscription has not come back; otherwise the run
 * records that it stopped and ends, having changed nothing. Going on, the
 * account is offboarding (every write refused from here) and its open
 * invitations are revoked.
 */
export async function beginOffboarding(deps: BeginDeps, input: { accountId: string; runId: string }): Promise<{ portalSlug: string; proceed: boolean }> {
  const account = await deps.accounts.getAccount(input.accountId);
  if (!account) throw new Error(`Account ${input.accountId} does not exist`);
  const portalSlug = account.portal_slug ?? '';
  const recorded = account.offboarding?.run_id === input.runId ? account.offboarding : undefined;
  const cameBack = recorded?.trigger === 'subscription' && isLiveSubscription(account.subscription_status);
  const stopped = !recorded
    ? 'The account no longer records this offboarding (its subscription came back, or another offboarding took its place): nothing was taken back'
    : cameBack
      ? 'The subscription is live again: nothing was taken back'
      : !(await deps.lifecycle.begin(input.accountId, input.runId))
        ? 'The account is not open any more (closed, or erased): nothing was taken back'
        : undefined;
  if (stopped) {
    await deps.runs.saveResult(input.runId, input.accountId, 0, { success: true, accountId: input.accountId, portalSlug, integrations: {}, details: {}, stopped });
    return { portalSlug, proceed: false };
  }
  const at = deps.now?.() ?? new Date();
  const open = (await deps.invitations.ofAccount(input.accountId)).filter((i) => i.status === 'pending');
  await Promise.all(open.map((i) => deps.invitations.revoke(i.id, ACCOUNT_CLOSED, at)));
  return { portalSlug, proceed: true };
}
