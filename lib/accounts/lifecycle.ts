// An account's life cycle, and the port that moves it along. Every change of
// status is a conditional write from the statuses it may leave, so two
// workflows of one account (an onboarding recording its outcome while the
// client leaves, a reopening racing an erasure) can never undo each other.
//
//   provisioning ─► active | needs_attention ─► offboarding ─► closed ─► erased
//                                 ▲                               │
//                                 └──────── reopen (provisioning) ┘
import type { Account, AccountStatus, AccountStore, ErasureRecord, Offboarding } from './accounts.ts';
import { Conflict } from '../errors.ts';

export type { Offboarding, OffboardingTrigger } from './accounts.ts';

/** Statuses of an account its members work in: onboarding may settle it, and offboarding may start from it. */
export const OPEN: readonly AccountStatus[] = ['provisioning', 'active', 'needs_attention'];
export const isAccountOpen = (status: AccountStatus | undefined): boolean => status === undefined || OPEN.includes(status);

export const accountClosed = (status: AccountStatus) =>
  new Conflict(
    status === 'offboarding'
      ? 'This account is being closed: it can be read, and reopened once closed, but not changed'
      : 'This account is closed: it can be read and reopened, but not changed',
    'account_closed',
  );

/** Refuses (409 account_closed) a change to a closing or closed account; the access guard's check. An unknown account is left to the use case. */
export const refuseIfClosed =
  (accounts: Pick<AccountStore, 'getAccount'>) =>
  async (accountId: string): Promise<void> => {
    const account = await accounts.getAccount(accountId);
    if (account && !isAccountOpen(account.status)) throw accountClosed(account.status);
  };

export interface LifecycleStore {
  /** Records the offboarding on an open account, unless one is recorded already (or it replaces `replacing`); false if not. */
  schedule(accountId: string, offboarding: Offboarding, replacing?: string): Promise<boolean>;
  /** Forgets an offboarding still waiting on an open account (the subscription came back); false if there was none to forget. */
  unschedule(accountId: string, runId: string): Promise<boolean>;
  /** Moves an open account whose recorded offboarding is this run to offboarding (true also when it is there already). */
  begin(accountId: string, runId: string): Promise<boolean>;
  /** Sets the status when the account is in one of `from`, with `set` beside it; false when it was not. */
  transition(accountId: string, from: readonly AccountStatus[], to: AccountStatus, set?: Partial<Account>): Promise<boolean>;
  /** Closed → `to` (provisioning: onboarded again; active: never onboarded), forgetting the offboarding; false when it was not closed. */
  reopen(accountId: string, by: string, at: Date, to: 'provisioning' | 'active'): Promise<boolean>;
  /** The shared link is dead: removed from the account and its member records. */
  forgetStorageLink(accountId: string): Promise<void>;
  /** Records an erasure's progress on a closed account (a place failed: the next call goes on from it). */
  noteErasure(accountId: string, record: ErasureRecord): Promise<void>;
  /** Closed → erased: the account keeps its id, status, dates, billing ids and the erasure record; its details go. */
  erase(accountId: string, record: ErasureRecord): Promise<boolean>;
}

/** What an erased account row no longer holds: everything that described the client or its people. */
export const ERASED_FIELDS = [
  'company_name',
  'company_url',
  'company_domain',
  'contact_email',
  'phone',
  'location',
  'timezone',
  'requested_plan',
  'metadata',
  'portal_slug',
  'dashboard_slug',
  'storage_path',
  'storage_link',
  'offboarding',
] as const satisfies readonly (keyof Account)[];
