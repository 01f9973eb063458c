// What every store and workflow declares for its function's IAM role
// (infra/roles-per-function.mjs) is exactly what its code sends. Each is
// bundled as a function's bundle holds it (esbuild, minified, only what the
// export reaches), its declarations are read from that bundle as the plugin
// reads them, and its scenario runs against dynalite (the workflows and the
// status probes against clients that answer for AWS) behind a client that
// records every request's action and table, index or machine. The two must be
// equal: a request sent without its declaration fails here rather than with
// AccessDenied in production, and a declaration nothing sends grants nothing.
// Each scenario calls every method of its store (a method added later fails
// here until its scenario calls it).
// Every module that sends requests is held to it (the last describe).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ExecutionAlreadyExists, type SFNClient } from '@aws-sdk/client-sfn';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { grantsIn } from '../../infra/roles-per-function.mjs';
import { dynamodbAccountReader, dynamodbAccounts, dynamodbSlugs } from '../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbInvitationReader, dynamodbInvitations } from '../../lib/accounts/dynamodb-invitations.ts';
import { dynamodbLifecycle } from '../../lib/accounts/dynamodb-lifecycle.ts';
import { dynamodbMembershipReader, dynamodbMemberships } from '../../lib/accounts/dynamodb-memberships.ts';
import type { Invitation } from '../../lib/accounts/invitations.ts';
import { dynamodbIntegrations } from '../../lib/accounts/integrations.ts';
import { dynamodbVerificationTokens } from '../../lib/auth/dynamodb-verification-tokens.ts';
import { dynamodbCrawlRecords } from '../../lib/crawler/dynamodb-records.ts';
import { dynamodbPaceSchedule } from '../../lib/integrations/dynamodb-pace-schedule.ts';
import { dynamodbDeliveries } from '../../lib/deliveries/dynamodb-deliveries.ts';
import { dynamodbPersonalRecords } from '../../lib/offboarding/dynamodb-personal-records.ts';
import { dynamodbBatches } from '../../lib/onboarding/dynamodb-batches.ts';
import { dynamodbRuns } from '../../lib/provisioning/runs.ts';
import { dynamodbBilling, dynamodbBillingReader } from '../../lib/payments/dynamodb-billing.ts';
import { dynamodbLedger } from '../../lib/provisioning/dynamodb-ledger.ts';
import { dynamodbFollowUps } from '../../lib/provisioning/follow-ups.ts';
import { dynamodbRateLimiter } from '../../lib/rate-limit/dynamodb-rate-limiter.ts';
import { createDocumentClient, dynamodb, type DynamoDBDocumentClient, type Tables } from '../../lib/store/dynamodb.ts';
import { dynamodbBookingTasks } from '../../lib/webhooks/dynamodb-booking-tasks.ts';
import { dynamodbMembershipMembers } from '../../lib/webhooks/dynamodb-membership-members.ts';
import { dynamodbInboundWebhooks, dynamodbWebhookIntegrations } from '../../lib/webhooks/dynamodb-webhook-integrations.ts';
import { statusDeps } from '../../lib/wiring/health.ts';
import { bookingQueue, crawlerRefreshWorkflow, enhancedOnboardingWorkflow, offboardingWorkflow, onboardingBatchQueue, onboardingWorkflow, paymentQueue, runStatus, stepFunctions } from '../../lib/wiring/workflows.ts';
import { useDynamo } from '../support/dynamo.ts';

const d = useDynamo('access-');
const MACHINE_PREFIX = 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-test-';
for (const [name, machine] of Object.entries({
  ONBOARDING_STATE_MACHINE_ARN: 'onboarding',
  ENHANCED_ONBOARDING_STATE_MACHINE_ARN: 'enhanced-onboarding',
  CRAWLER_REFRESH_STATE_MACHINE_ARN: 'crawler-refresh',
  BOOKING_STATE_MACHINE_ARN: 'booking',
  PAYMENTS_STATE_MACHINE_ARN: 'payments',
  ONBOARDING_BATCH_STATE_MACHINE_ARN: 'onboarding-batch',
  OFFBOARDING_STATE_MACHINE_ARN: 'offboarding',
})) {
  process.env[name] = `${MACHINE_PREFIX}${machine}`;
}

/** Each request as the IAM action and resource it needs, e.g. "dynamodb:table/accounts:GetItem". */
function requestsOf(command: string, input: Record<string, any>): string[] {
  const action = command.replace(/Command$/, '');
  const table = (name: string) => `table/${name.replace(/^(access-|test-)/, '')}`;
  if (input.RequestItems) return Object.keys(input.RequestItems).map((name) => `dynamodb:${table(name)}:${action}`);
  if (input.TableName) return [`dynamodb:${table(input.TableName)}${input.IndexName ? `/index/${input.IndexName}` : ''}:${action}`];
  const arn = String(input.stateMachineArn ?? input.executionArn ?? '');
  const machine = /:(stateMachine|execution):agency-backend-test-([\w-]+)/.exec(arn);
  if (machine) return [`states:${machine[1]}/${machine[2]}:${action}`];
  throw new Error(`a request this test cannot name the resource of: ${command} ${JSON.stringify(input)}`);
}

type Answer = (command: string, input: Record<string, any>) => unknown;

/** Tells `note` of every request sent through the client; with `answer`, answers it instead of sending it. */
function record(client: DynamoDBClient | SFNClient, note: (request: string) => void, answer?: Answer) {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      for (const request of requestsOf(context.commandName!, args.input as Record<string, any>)) note(request);
      return answer ? { output: { $metadata: {}, ...(answer(context.commandName!, args.input as Record<string, any>) as object) }, response: {} } : next(args);
    },
    { step: 'initialize', name: 'recordRequests' },
  );
}

/** A document client on dynalite that records what it is sent. */
function recordingDb(seen: Set<string>): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ endpoint: d.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  record(client, (request) => seen.add(request));
  return createDocumentClient(client);
}

/** The declarations a function's bundle holds when it imports this export, one string per action and resource. */
async function declaredBy(module: string, name: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: `export { ${name} } from ${JSON.stringify(resolve(module))};`, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    keepNames: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  return grantsIn(result.outputFiles[0]!.text).flatMap((g) => g.actions.map((action) => `${g.service}:${g.resource}:${action}`)).sort();
}

/** The methods of the stores a scenario tracks, and which of them it called: a scenario must call every one. */
let tracked: { name: string; methods: string[]; called: Set<string> }[] = [];
function track<T extends object>(store: T, name = 'the store'): T {
  const entry = { name, methods: Object.keys(store).filter((k) => typeof (store as Record<string, unknown>)[k] === 'function'), called: new Set<string>() };
  tracked.push(entry);
  const nested = Object.fromEntries(
    Object.entries(store).filter(([, v]) => typeof v === 'object' && v !== null).map(([k, v]) => [k, track(v as object, `${name}.${k}`)]),
  );
  return new Proxy(store, {
    get(target, key) {
      if (typeof key === 'string' && key in nested) return nested[key];
      if (typeof key === 'string' && entry.methods.includes(key)) entry.called.add(key);
      return Reflect.get(target, key);
    },
  });
}

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const day = 86_400_000;
type Scenario = { module: string; run: (db: DynamoDBDocumentClient, tables: Tables) => Promise<unknown> };

/** An account row to act on, written beside the recording client. */
const anAccount = async (id = crypto.randomUUID()) => {
  await d.db.send(new PutCommand({ TableName: d.tables.accounts, Item: { id, company_name: 'Acme', owner_count: 1 } }));
  return id;
};

/** Every store that declares what it sends, with a scenario that takes each of its paths to DynamoDB. */
const stores: Record<string, Scenario> = {
  dynamodbAccountReader: {
    module: 'lib/accounts/dynamodb-accounts.ts',
    run: async (db, tables) => {
      const reader = track(dynamodbAccountReader({ db, tables }));
      await reader.getAccount(ACCOUNT);
      await reader.getMember(ACCOUNT, 'a@example.com');
      await reader.membersOf(ACCOUNT);
    },
  },
  dynamodbAccounts: {
    module: 'lib/accounts/dynamodb-accounts.ts',
    run: async (db, tables) => {
      const accounts = track(dynamodbAccounts({ db, tables }));
      const id = crypto.randomUUID();
      await accounts.saveAccountDetails(id, { company_name: 'Acme' });
      const member = { account_id: id, email: 'a@example.com', name: 'A', company_name: 'Acme' } as never;
      await accounts.claimMember(member);
      await accounts.claimMember(member); // there already: read back
      await accounts.setPortalSlugOnce(id, 'acme');
      await accounts.setPortalSlugOnce(id, 'acme-2'); // has one: read back
      await accounts.setMemberStatusForAccount(id, 'active');
      await accounts.setMemberStorage(id, 'a@example.com', { link: 'https://x.example/l', path: '/Clients/acme', createdAt: new Date().toISOString() });
      await accounts.getAccount(id);
      await accounts.getMember(id, 'a@example.com');
      await accounts.membersOf(id);
    },
  },
  dynamodbLifecycle: {
    module: 'lib/accounts/dynamodb-lifecycle.ts',
    run: async (db, tables) => {
      const lifecycle = track(dynamodbLifecycle({ db, tables }));
      const id = await anAccount();
      await d.db.send(new PutCommand({ TableName: d.tables.account_members, Item: { account_id: id, email: 'a@example.com', storage_link: 'https://x.example/l' } }));
      await d.db.send(new PutCommand({ TableName: d.tables.accounts, Item: { id, status: 'active', storage_link: 'https://x.example/l' } }));
      const at = new Date().toISOString();
      const offboarding = { run_id: 'run-1', trigger: 'request', reason: 'r', requested_by: 'u', requested_at: at, not_before: at } as const;
      await lifecycle.schedule(id, offboarding);
      await lifecycle.unschedule(id, 'run-1');
      await lifecycle.schedule(id, offboarding);
      await lifecycle.begin(id, 'run-1');
      await lifecycle.forgetStorageLink(id);
      await lifecycle.transition(id, ['offboarding'], 'closed', { closed_at: at });
      await lifecycle.reopen(id, 'u', new Date(), 'provisioning');
      await lifecycle.transition(id, ['provisioning'], 'closed', { closed_at: at });
      await lifecycle.noteErasure(id, { requested_by: 'admin-key', requested_at: at, places: {} });
      await lifecycle.erase(id, { requested_by: 'admin-key', requested_at: at, places: {} });
    },
  },
  dynamodbPersonalRecords: {
    module: 'lib/offboarding/dynamodb-personal-records.ts',
    run: async (db, tables) => {
      const records = track(dynamodbPersonalRecords({ db, tables }));
      const id = await anAccount();
      const at = new Date().toISOString();
      const email = `p-${crypto.randomUUID()}@example.com`;
      // One record of the account in each table the inventory erases from.
      for (const [TableName, Item] of [
        [d.tables.account_members, { account_id: id, email, name: 'P' }],
        [d.tables.memberships, { account_id: id, user_id: 'user-1', email, status: 'active' }],
        [d.tables.invitations, { id: crypto.randomUUID(), account_id: id, email, created_at: at }],
        [d.tables.verification_tokens, { token_hash: crypto.randomUUID(), email, user_id: 'user-1' }],
        [d.tables.provisioning, { account_id: id, resource: 'booking#calendly#b1', value: { id: 't1' } }],
        [d.tables.onboarding_runs, { run_id: `${id}-0123456789abcdef`, item: 'run', account_id: id, started_at: at }],
        [d.tables.onboarding_batches, { batch_id: crypto.randomUUID(), item: 'row#2', account_id: id }],
        [d.tables.follow_ups, { account_id: id, integration: 'clickup' }],
        [d.tables.crawler_jobs, { job_id: `job-${id}`, account_id: id, requested_at: at }],
        [d.tables.crawler_results, { job_id: `job-${id}`, item: 'scrape' }],
        [d.tables.crawler_events, { account_id: id, event_id: 'e1' }],
        [d.tables.crawler_stats, { account_id: id, item: 'sites' }],
        [d.tables.slugs, { slug: `s-${id}`, account_id: id }],
      ] as const) {
        await d.db.send(new PutCommand({ TableName, Item }));
      }
      const people = await records.peopleOf(id);
      await records.bookingTaskIds(id);
      await records.activeMembershipsElsewhere('user-1', id);
      await records.eraseRecords({ id, portal_slug: `s-${id}` } as never, people);
    },
  },
  dynamodbSlugs: {
    module: 'lib/accounts/dynamodb-accounts.ts',
    run: async (db, tables) => {
      const slugs = track(dynamodbSlugs({ db, tables }));
      await slugs.reserve(`s-${crypto.randomUUID()}`, ACCOUNT);
      await slugs.release(`s-${crypto.randomUUID()}`, ACCOUNT);
    },
  },
  dynamodbMembershipReader: {
    module: 'lib/accounts/dynamodb-memberships.ts',
    run: async (db, tables) => {
      const reader = track(dynamodbMembershipReader({ db, tables }));
      await reader.get(ACCOUNT, 'user-1');
      await reader.ofUser('user-1');
      await reader.ofAccount(ACCOUNT);
      await reader.ofEmail('a@example.com');
    },
  },
  dynamodbMemberships: {
    module: 'lib/accounts/dynamodb-memberships.ts',
    run: async (db, tables) => {
      const memberships = track(dynamodbMemberships({ db, tables }));
      const id = await anAccount();
      await d.db.send(new PutCommand({ TableName: d.tables.accounts, Item: { id, owner_count: 0 } }));
      await memberships.join({ accountId: id, userId: 'owner', email: 'o@example.com', role: 'owner', via: 'signup' } as never);
      await memberships.join({ accountId: id, userId: 'b', email: 'b@example.com', role: 'member', via: 'invitation', invitationId: 'i' } as never);
      await memberships.setRole(id, 'b', 'member', 'admin');
      await memberships.setRole(id, 'owner', 'owner', 'admin'); // the last owner: refused
      await memberships.remove(id, 'b', 'admin');
      await memberships.get(id, 'b');
      await memberships.ofUser('b');
      await memberships.ofAccount(id);
      await memberships.ofEmail('b@example.com');
    },
  },
  dynamodbInvitationReader: {
    module: 'lib/accounts/dynamodb-invitations.ts',
    run: async (db, tables) => {
      const reader = track(dynamodbInvitationReader({ db, tables }));
      await reader.get('no-such-invitation');
      await reader.ofAccount(ACCOUNT);
      await reader.toEmail('a@example.com');
    },
  },
  dynamodbInvitations: {
    module: 'lib/accounts/dynamodb-invitations.ts',
    run: async (db, tables) => {
      const invitations = track(dynamodbInvitations({ db, tables }));
      const now = new Date();
      const invitation = (id: string) =>
        ({
          id,
          account_id: ACCOUNT,
          email: 'a@example.com',
          role: 'member',
          status: 'pending',
          invited_by: { kind: 'user', userId: 'owner' },
          created_at: now.toISOString(),
          expires_at: Math.floor((now.getTime() + 7 * day) / 1000),
        }) as unknown as Invitation;
      const [first, second, third] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      await invitations.open(invitation(first));
      await invitations.open(invitation(second)); // the address is taken: looks at the holder
      await invitations.markSent(first, now);
      await invitations.accept(first, 'user-a', now);
      await invitations.open(invitation(second));
      await invitations.revoke(second, 'owner', now, { bar: true });
      await invitations.open(invitation(third));
      await invitations.closeTo(ACCOUNT, 'a@example.com', 'owner', now);
      await invitations.get(first);
      await invitations.ofAccount(ACCOUNT);
      await invitations.toEmail('a@example.com');
    },
  },
  dynamodbIntegrations: {
    module: 'lib/accounts/integrations.ts',
    run: async (db, tables) => {
      const integrations = track(dynamodbIntegrations({ db, tables }));
      const id = crypto.randomUUID();
      await integrations.ensure(id);
      await integrations.ensure(id);
      await integrations.get(id);
    },
  },
  dynamodbVerificationTokens: {
    module: 'lib/auth/dynamodb-verification-tokens.ts',
    run: async (db, tables) => {
      const tokens = track(dynamodbVerificationTokens({ db, tables }));
      const now = new Date();
      const tokenHash = crypto.randomUUID().replaceAll('-', '');
      await tokens.save({ tokenHash, userId: 'u', email: 'a@example.com', createdAt: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + 3600 } as never);
      const consumed = await tokens.consume(tokenHash, now);
      await tokens.restore(consumed!);
      await tokens.voidLinksOf('u', now, Math.floor(now.getTime() / 1000) + 3600);
      await tokens.isVoided({ userId: 'u', createdAt: now.toISOString() } as never);
    },
  },
  dynamodbCrawlRecords: {
    module: 'lib/crawler/dynamodb-records.ts',
    run: async (db, tables) => {
      const { jobs, events, results, stats } = track(dynamodbCrawlRecords({ db, tables }));
      const jobId = crypto.randomUUID();
      const at = new Date().toISOString();
      const context = { industry: 'plumbing', city: 'Leeds' };
      await jobs.open({ job_id: jobId, account_id: ACCOUNT, kind: 'refresh', url: 'https://acme.example', context, requested_at: at } as never);
      await jobs.get(jobId);
      await jobs.markStarted(jobId, at);
      await jobs.recordPart(jobId, 'scrape' as never, 'done' as never);
      await jobs.finish(jobId, { status: 'succeeded', finished_at: at, duration_ms: 5, errors: [], pages_crawled: 1 } as never);
      await jobs.recent(ACCOUNT, 5);
      await events.record(ACCOUNT, { jobId, type: 'job.queued', message: 'queued' } as never);
      await events.recent(ACCOUNT, 5);
      await results.saveAnalysis(jobId, { performance: 90 } as never);
      await results.analysis(jobId);
      const page = { url: 'https://acme.example/', title: 'Acme', description: '', headings: [], wordCount: 1, text: 'hi' };
      await results.saveScrape(jobId, { source: 'crawler', startUrl: page.url, pages: 1, words: 1, skipped: {}, finishedAt: at }, [page] as never);
      await results.scrape(jobId);
      await results.pages(jobId);
      await stats.noteGeoTarget(ACCOUNT, context as never, { jobId, site: 'https://acme.example', at });
      await stats.recordGeoCoverage(ACCOUNT, context as never, { checkedAt: at } as never);
      await stats.recordSite(ACCOUNT, { site: 'https://acme.example', jobId, at, completed: true, pagesCrawled: 1, words: 1 });
      await stats.forAccount(ACCOUNT);
    },
  },
  dynamodbDeliveries: {
    module: 'lib/deliveries/dynamodb-deliveries.ts',
    run: async (db, tables) => {
      const deliveries = track(dynamodbDeliveries({ db, tables }));
      const [kept, given] = [`e-${crypto.randomUUID()}`, `e-${crypto.randomUUID()}`];
      await deliveries.acquire(kept, 'h1');
      await deliveries.finish(kept, 'h1', 'applied');
      await deliveries.acquire(given, 'h1');
      await deliveries.release(given, 'h1');
      await deliveries.record(`e-${crypto.randomUUID()}`, 'applied');
      await deliveries.value(kept);
    },
  },
  dynamodbRuns: {
    module: 'lib/provisioning/runs.ts',
    run: async (db, tables) => {
      const runs = track(dynamodbRuns({ db, tables }));
      const runId = `${ACCOUNT}-${crypto.randomUUID().slice(0, 16)}`;
      await runs.begin(runId, ACCOUNT);
      await runs.get(runId);
      await runs.getMany([runId]);
      await runs.saveResult(runId, ACCOUNT, 0, { success: true, integrations: {} } as never);
      await runs.recordStep(runId, { integration: 'clickup', outcome: 'success', details: {}, at: new Date().toISOString() } as never);
      await runs.steps(runId);
    },
  },
  dynamodbBatches: {
    module: 'lib/onboarding/dynamodb-batches.ts',
    run: async (db, tables) => {
      const batches = track(dynamodbBatches({ db, tables }));
      const batchId = crypto.randomUUID();
      const at = new Date().toISOString();
      await batches.create({ batch_id: batchId, created_at: at, created_by: 'service', rows: 1, invalid: [] }, [{ line: 2, state: 'queued', intake: { companyName: 'Acme' } } as never]);
      await batches.get(batchId);
      await batches.queued(batchId, 10);
      await batches.settle(batchId, 2, { state: 'started', run_id: 'run-1', account_id: ACCOUNT } as never);
      await batches.rows(batchId);
    },
  },
  dynamodbPaceSchedule: {
    module: 'lib/integrations/dynamodb-pace-schedule.ts',
    run: async (db, tables) => {
      const schedule = track(dynamodbPaceSchedule({ db, tables }));
      const key = `clickup#${crypto.randomUUID()}`;
      const now = Date.now();
      await schedule.book(key, 2, 600, now); // idle: starts now
      await schedule.book(key, 2, 600, now); // busy: extended
      await schedule.holdUntil(key, now + 60_000);
    },
  },
  dynamodbBillingReader: {
    module: 'lib/payments/dynamodb-billing.ts',
    run: async (db, tables) => track(dynamodbBillingReader({ db, tables })).billingOf(await anAccount()),
  },
  dynamodbBilling: {
    module: 'lib/payments/dynamodb-billing.ts',
    run: async (db, tables) => {
      const billing = track(dynamodbBilling({ db, tables }));
      const id = await anAccount();
      await billing.billingOf(id);
      await billing.saveBilling(id, 0, { plan: 'pro', customerId: `cus_${id}` } as never);
      await billing.accountForCustomer(`cus_${id}`);
    },
  },
  dynamodbLedger: {
    module: 'lib/provisioning/dynamodb-ledger.ts',
    run: async (db, tables) => {
      const ledger = track(dynamodbLedger({ db, tables }));
      const [made, failed] = [{ accountId: ACCOUNT, resource: `r-${crypto.randomUUID()}` }, { accountId: ACCOUNT, resource: `r-${crypto.randomUUID()}` }];
      await ledger.claims.acquire(made, 'run-1');
      await ledger.claims.finish(made, 'run-1', { id: 'x' });
      await ledger.claims.acquire(failed, 'run-1');
      await ledger.claims.release(failed, 'run-1');
      await ledger.put(ACCOUNT, `r-${crypto.randomUUID()}`, { id: 'y' });
      await ledger.get(ACCOUNT, made.resource);
      await ledger.claims.record({ accountId: ACCOUNT, resource: `r-${crypto.randomUUID()}` }, { id: 'z' });
      await ledger.claims.value(made);
    },
  },
  dynamodbFollowUps: {
    module: 'lib/provisioning/follow-ups.ts',
    run: async (db, tables) => {
      const followUps = track(dynamodbFollowUps({ db, tables, metrics: { count: () => undefined } as never }));
      await followUps.open(ACCOUNT, 'run-1', { integration: 'clickup', message: 'down', context: {} });
      await followUps.resolve(ACCOUNT, 'clickup');
      await followUps.listOpen(5);
    },
  },
  dynamodbRateLimiter: {
    module: 'lib/rate-limit/dynamodb-rate-limiter.ts',
    run: async (db, tables) => {
      const limiter = track(dynamodbRateLimiter({ db, tables }));
      const rule = { name: `r-${crypto.randomUUID()}`, limit: 1, windowSeconds: 60 };
      await limiter.hit(rule, 'a'); // opens the window
      await limiter.hit(rule, 'a'); // full: reads it to say when it reopens
      await limiter.peek(rule, 'a');
    },
  },
  dynamodbBookingTasks: {
    module: 'lib/webhooks/dynamodb-booking-tasks.ts',
    run: async (db, tables) => {
      const tasks = track(dynamodbBookingTasks({ db, tables }));
      const ref = `cal#${crypto.randomUUID()}`;
      await tasks.claim(ACCOUNT, ref, 'h1');
      await tasks.save(ACCOUNT, ref, 'h1', { taskId: 't1', state: 'booked', eventAt: new Date().toISOString() } as never);
      await tasks.claim(ACCOUNT, ref, 'h2');
      await tasks.release(ACCOUNT, ref, 'h2');
      await tasks.get(ACCOUNT, ref);
    },
  },
  dynamodbMembershipMembers: {
    module: 'lib/webhooks/dynamodb-membership-members.ts',
    run: async (db, tables) => {
      const members = track(dynamodbMembershipMembers({ db, tables }));
      const member = { account_id: ACCOUNT, email: `m-${crypto.randomUUID()}@example.com`, membership: { member_id: 'mem_1' } } as never;
      await members.save(member, {}, true);
      const saved = (await members.get(ACCOUNT, (member as { email: string }).email))!;
      await members.save(saved, { status: 'active' }, false);
      await members.markOnboardingStarted(ACCOUNT, (member as { email: string }).email, 'run-1');
    },
  },
  dynamodbInboundWebhooks: {
    module: 'lib/webhooks/dynamodb-webhook-integrations.ts',
    run: async (db, tables) => track(dynamodbInboundWebhooks({ db, tables })).inboundFor('0'.repeat(64)),
  },
  dynamodbWebhookIntegrations: {
    module: 'lib/webhooks/dynamodb-webhook-integrations.ts',
    run: async (db, tables) => {
      const integrations = track(dynamodbWebhookIntegrations({ db, tables }));
      const id = crypto.randomUUID();
      await integrations.ensure(id);
      await integrations.setSigningKeys(id, { svix: 'whsec_a' } as never);
      await integrations.setSigningKeys(id, { svix: null } as never);
      await integrations.rotate(id);
      await integrations.get(id);
      await integrations.inboundFor('0'.repeat(64));
    },
  },
};

/** What the service's own clients (those the wiring's getters send through) are sent, getter by getter. */
let wiredSeen = new Set<string>();

/** Step Functions as the workflows meet it: a run named "again" exists already and failed, so it is redriven. */
const stepFunctionsAnswers: Answer = (command, input) => {
  if (command === 'StartExecutionCommand') {
    if (input.name === 'again') throw new ExecutionAlreadyExists({ message: 'exists', $metadata: {} });
    return { executionArn: `${String(input.stateMachineArn).replace(':stateMachine:', ':execution:')}:${input.name}`, startDate: new Date() };
  }
  if (command === 'DescribeExecutionCommand') return { executionArn: input.executionArn, status: 'FAILED', redriveStatus: 'REDRIVABLE', redriveCount: 0 };
  return {};
};

/** The getters of the composition root that declare what they send, each with its scenario. */
const getters: Record<string, { module: string; run: () => Promise<unknown> }> = {
  statusDeps: {
    module: 'lib/wiring/health.ts',
    run: async () => {
      const { dependencies } = statusDeps();
      await dependencies.dynamodb!();
      await dependencies.stepFunctions!();
    },
  },
  ...Object.fromEntries(
    Object.entries({ onboardingWorkflow, enhancedOnboardingWorkflow, offboardingWorkflow, crawlerRefreshWorkflow }).map(([name, workflow]) => [
      name,
      {
        module: 'lib/wiring/workflows.ts',
        run: async () => {
          const run = await workflow().startOrResume('first', {}, { seenBefore: true });
          await workflow().startOrResume('again', {});
          await workflow().status(run.executionArn);
        },
      },
    ]),
  ),
  // A run is read wherever it runs: any machine of the registry's workflows.
  runStatus: {
    module: 'lib/wiring/workflows.ts',
    run: async () => {
      for (const machine of ['onboarding', 'enhanced-onboarding', 'offboarding']) await runStatus().status(`${MACHINE_PREFIX.replace(':stateMachine:', ':execution:')}${machine}:run-1`);
    },
  },
  bookingQueue: { module: 'lib/wiring/workflows.ts', run: () => bookingQueue().enqueue('job', {} as never) },
  paymentQueue: { module: 'lib/wiring/workflows.ts', run: () => paymentQueue().enqueue('job', {} as never) },
  onboardingBatchQueue: { module: 'lib/wiring/workflows.ts', run: () => onboardingBatchQueue().start('batch-1') },
};

beforeAll(() => {
  // Before their first request: the Step Functions client keeps its middleware once it has sent one.
  record(stepFunctions(), (request) => wiredSeen.add(request), stepFunctionsAnswers);
  record(dynamodb, (request) => wiredSeen.add(request), () => ({ Table: { TableStatus: 'ACTIVE' } }));
});

describe('what each store declares for its role', () => {
  for (const [name, { module, run }] of Object.entries(stores)) {
    it(`${name} declares exactly what it sends`, async () => {
      const seen = new Set<string>();
      tracked = [];
      await run(recordingDb(seen), d.tables);
      expect(tracked.length, 'the scenario tracks the store it runs').toBeGreaterThan(0);
      for (const { name: store, methods, called } of tracked) expect(methods.filter((m) => !called.has(m)), `methods of ${store} the scenario never calls`).toEqual([]);
      expect([...seen].sort(), `${name} (${module}) sent, and so must declare`).toEqual(await declaredBy(module, name));
    });
  }
});

describe('what each getter of the composition root declares for its role', () => {
  for (const [name, { module, run }] of Object.entries(getters)) {
    it(`${name} declares exactly what it sends`, async () => {
      wiredSeen = new Set();
      await run();
      expect([...wiredSeen].sort(), `${name} (${module}) sent, and so must declare`).toEqual(await declaredBy(module, name));
    });
  }
});

describe('every sender of DynamoDB or Step Functions requests', () => {
  const sources = readdirSync('lib', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join('lib', f));
  /** Sends requests to the resources its callers name: they declare for it, and their scenarios above run it. */
  const onBehalfOfCallers: Record<string, string> = {
    'lib/store/dynamodb.ts': 'queryAll: each store that pages through a query',
    'lib/store/dynamodb-claims.ts': 'the ledger, the delivery log and the booking tasks, each on its table',
    'lib/workflows/sfn-workflow.ts': 'the workflow getters of lib/wiring/workflows.ts, each on its machine',
    'lib/workflows/sfn-queue.ts': 'the queue getters of lib/wiring/workflows.ts, each on its machine',
    'lib/health/probes.ts': 'statusDeps (lib/wiring/health.ts), on the table and machine it names',
  };
  const sendsRequests = (source: string) =>
    [...source.matchAll(/import \{([^}]*)\} from '@aws-sdk\/(?:lib-dynamodb|client-dynamodb|client-sfn)'/g)].some(([, names]) =>
      names!.split(',').some((n) => /^\s*\w+Command\s*$/.test(n)),
    );

  it('declares what it sends, or sends only what its callers declare', () => {
    const undeclared = sources.filter((f) => sendsRequests(readFileSync(f, 'utf8')) && !readFileSync(f, 'utf8').includes("'iam:") && !onBehalfOfCallers[f]);
    expect(undeclared, 'these send requests with no declaration: declare them (infra/roles-per-function.mjs) and add a scenario here').toEqual([]);
    for (const f of Object.keys(onBehalfOfCallers)) expect(sendsRequests(readFileSync(f, 'utf8')), f).toBe(true);
  });

  it('has its scenario here, for each export that declares', async () => {
    const declaring: string[] = [];
    for (const f of sources.filter((s) => readFileSync(s, 'utf8').includes("'iam:"))) {
      const module = (await import(resolve(f))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (typeof value === 'function' && /["']iam:/.test(value.toString())) declaring.push(`${f} ${name}`);
      }
    }
    const covered = [...Object.entries(stores), ...Object.entries(getters)].map(([name, { module }]) => `${module} ${name}`);
    expect(declaring.sort()).toEqual(covered.sort());
  });
});
