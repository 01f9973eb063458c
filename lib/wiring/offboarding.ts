// What the offboarding functions and steps share: the workflow that takes a
// client back, and how a request, a subscription's end and a reopening reach
// it. Each is built once per Lambda instance.
import { crmSettings, offboardingSettings, portalUrls } from '../config.ts';
import type { BeginDeps } from '../offboarding/begin.ts';
import { followSubscription, type OffboardingDeps } from '../offboarding/offboard.ts';
import type { SubscriptionWatch } from '../payments/receive-payment-event.ts';
import type { ReopenDeps } from '../offboarding/reopen.ts';
import { beginOnboarding } from '../onboarding/start-onboarding.ts';
import { dynamodbPersonalRecords } from '../offboarding/dynamodb-personal-records.ts';
import type { ErasureDeps } from '../offboarding/erase.ts';
import { db, tables } from '../store/dynamodb.ts';
import { adminIdentity, crm, storage, taskTool } from './adapters.ts';
import { kept } from './lazy.ts';
import { executionArnOfRun, onboardingDeps } from './onboarding.ts';
import { accountReader, invitations, ledger, lifecycle, runs } from './stores.ts';
import { offboardingWorkflow, runStatus } from './workflows.ts';

/** Whether a run of the account is still going: its record has no result, and its execution runs. */
const stillRunning = async (runId: string) => {
  const record = await runs().get(runId);
  if (!record || record.result) return false;
  return (await runStatus().status(executionArnOfRun(runId, record.workflow))) === 'RUNNING';
};

export const offboardingDeps = (): OffboardingDeps =>
  kept('offboardingDeps', () => ({
    accounts: accountReader(),
    lifecycle: lifecycle(),
    runs: runs(),
    workflow: offboardingWorkflow(),
    onboardingRunning: stillRunning,
    graceSeconds: offboardingSettings().graceSeconds,
  }));

/** How the payments step tells offboarding of a subscription's end, or its coming back. */
export const subscriptionWatch = (): SubscriptionWatch =>
  kept('subscriptionWatch', () => ({ changed: (accountId, subscription) => followSubscription(offboardingDeps(), accountId, subscription) }));

export const beginOffboardingDeps = (): BeginDeps =>
  kept('beginOffboardingDeps', () => ({ accounts: accountReader(), lifecycle: lifecycle(), invitations: invitations(), runs: runs() }));

export const reopenDeps = (): ReopenDeps =>
  kept('reopenDeps', () => ({
    accounts: accountReader(),
    lifecycle: lifecycle(),
    onboard: (accountId, intake, runKey) => beginOnboarding(onboardingDeps(), accountId, intake, { runKey }),
  }));

export const erasureDeps = (): ErasureDeps =>
  kept('erasureDeps', () => ({
    accounts: accountReader(),
    lifecycle: lifecycle(),
    records: dynamodbPersonalRecords({ db, tables }),
    ledger: ledger(),
    crm: crm('person'),
    storage: storage('person'),
    taskTool: taskTool('person'),
    identity: adminIdentity(),
  }));

/** Where closed clients' storage folders are kept. */
export const storageArchive = (): string => offboardingSettings().archivePath;
/** The CRM's lead status for former clients, when the deployment has one. */
export const formerClientStatus = (): string | undefined => crmSettings()?.formerClientStatusId;
export const portalUrl = (): string => portalUrls().portal;
