// In-memory implementations of the ports, for use-case tests. Each keeps what
// it was asked to do, so tests assert on state left behind, not on calls.
import type { Account, AccountDetails, AccountStore, Member, NewMember, SlugRegistry } from '../../lib/accounts/accounts.ts';
import type { IntegrationStore } from '../../lib/accounts/integrations.ts';
import { ERASED_FIELDS, OPEN, type LifecycleStore } from '../../lib/accounts/lifecycle.ts';
import { DELIVERY_CLAIMS } from '../../lib/deliveries/deliveries.ts';
import { VendorError } from '../../lib/errors.ts';
import type { Chat, ChatMessage } from '../../lib/integrations/chat.ts';
import type { Crm, LeadDetails } from '../../lib/integrations/crm.ts';
import type { Mailer, OutgoingEmail } from '../../lib/integrations/mailer.ts';
import type { Logger, LogFields } from '../../lib/log.ts';
import { emfMetrics, type Metrics } from '../../lib/metrics.ts';
import type { ScrapedPage, SiteScraper } from '../../lib/crawler/site.ts';
import type { PaceSchedule } from '../../lib/integrations/pacing.ts';
import type { Storage } from '../../lib/integrations/storage.ts';
import type { Queue } from '../../lib/workflows/queue.ts';
import type { ExecutionStatus, RunHandle, Workflow } from '../../lib/workflows/workflow.ts';
import type { NewTask, TaskPatch, TaskRef, TaskTool } from '../../lib/integrations/task-tool.ts';
import type { StepReport } from '../../lib/provisioning/outcomes.ts';
import type { RunRecord, RunStore } from '../../lib/provisioning/runs.ts';
import type { FollowUp, FollowUps } from '../../lib/provisioning/follow-ups.ts';
import { ledgerOf, LEDGER_CLAIMS, type EntryKey } from '../../lib/provisioning/ledger.ts';
import type { About, ClaimPolicy, Claims } from '../../lib/store/claims.ts';
import { BOOKING_TASK_CLAIMS, bookingTasksOf, type BookingKey, type StoredBookingTask } from '../../lib/webhooks/booking-tasks.ts';

const now = () => new Date().toISOString();

/** Member records in memory as the table keeps them: one per account and address. */
export class MemberRecords extends Map<string, Member> {
  of(accountId: string, email: string): Member | undefined {
    return this.get(`${accountId} ${email}`);
  }
  put(member: Member): Member {
    this.set(`${member.account_id} ${member.email}`, member);
    return member;
  }
  ofAccount(accountId: string): Member[] {
    return [...this.values()].filter((m) => m.account_id === accountId);
  }
}

export function fakeAccounts() {
  const accounts = new Map<string, Account>();
  const members = new MemberRecords();
  const store: AccountStore = {
    getAccount: async (id) => accounts.get(id),
    getMember: async (accountId, email) => members.of(accountId, email),
    async claimMember(m: NewMember) {
      const existing = members.of(m.account_id, m.email);
      if (existing) return { member: existing, created: false };
      return { member: members.put({ ...m, status: 'provisioning', created_at: now(), updated_at: now() }), created: true };
    },
    async saveAccountDetails(id: string, details: AccountDetails) {
      const current = accounts.get(id) ?? { id, status: 'provisioning' as const, created_at: now(), updated_at: now() };
      const defined = Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined));
      const next = { ...current, ...defined, updated_at: now() };
      accounts.set(id, next);
      return next;
    },
    async setPortalSlugOnce(accountId, slug) {
      const account = accounts.get(accountId)!;
      if (!account.portal_slug) accounts.set(accountId, { ...account, portal_slug: slug, dashboard_slug: slug });
      return accounts.get(accountId)!.portal_slug!;
    },
    async setMemberStatusForAccount(accountId, status) {
      for (const m of members.ofAccount(accountId)) members.put({ ...m, status });
    },
    async setMemberStorage(accountId, email, storage) {
      const m = members.of(accountId, email)!;
      members.put({ ...m, storage_link: storage.link, storage_path: storage.path, storage_created_at: m.storage_created_at ?? storage.createdAt });
    },
    membersOf: async (accountId) => members.ofAccount(accountId),
  };
  return { store, accounts, members, lifecycle: fakeLifecycle(accounts, members) };
}

/** The life cycle's conditional writes (lib/accounts/lifecycle.ts) on the fake's accounts. */
export function fakeLifecycle(accounts: Map<string, Account>, members = new MemberRecords()): LifecycleStore {
  const change = (id: string, when: (a: Account) => boolean, next: (a: Account) => Account) => {
    const account = accounts.get(id);
    if (!account || !when(account)) return false;
    accounts.set(id, { ...next(account), updated_at: now() });
    return true;
  };
  return {
    schedule: async (id, offboarding, replacing) =>
      change(id, (a) => OPEN.includes(a.status) && (!a.offboarding || [offboarding.run_id, replacing].includes(a.offboarding.run_id)), (a) => ({ ...a, offboarding })),
    unschedule: async (id, runId) => change(id, (a) => OPEN.includes(a.status) && a.offboarding?.run_id === runId, ({ offboarding: _, ...a }) => a),
    begin: async (id, runId) =>
      change(id, (a) => a.offboarding?.run_id === runId && (OPEN.includes(a.status) || a.status === 'offboarding'), (a) => ({ ...a, status: 'offboarding' })),
    transition: async (id, from, to, set = {}) => change(id, (a) => from.includes(a.status), (a) => ({ ...a, ...set, status: to })),
    reopen: async (id, by, at, to) =>
      change(id, (a) => a.status === 'closed', ({ offboarding: _, closed_at: __, ...a }) => ({ ...a, status: to, reopened_at: at.toISOString() })),
    async noteErasure(id, erasure) {
      change(id, (a) => a.status === 'closed', (a) => ({ ...a, erasure }));
    },
    erase: async (id, erasure) =>
      change(
        id,
        (a) => a.status === 'closed',
        (a) => ({ ...(Object.fromEntries(Object.entries(a).filter(([k]) => !(ERASED_FIELDS as readonly string[]).includes(k))) as Account), status: 'erased', erasure }),
      ),
    async forgetStorageLink(id) {
      change(id, () => true, ({ storage_link: _, ...a }) => a);
      for (const m of members.ofAccount(id)) {
        const { storage_link: _, ...rest } = m;
        members.put(rest);
      }
    },
  };
}

export function fakeSlugs(): SlugRegistry & { owners: Map<string, string> } {
  const owners = new Map<string, string>();
  return {
    owners,
    async reserve(slug, accountId) {
      const owner = owners.get(slug);
      if (owner && owner !== accountId) return false;
      owners.set(slug, accountId);
      return true;
    },
    async release(slug, accountId) {
      if (owners.get(slug) === accountId) owners.delete(slug);
    },
  };
}

export function fakeIntegrations(): IntegrationStore & { rows: Set<string> } {
  const rows = new Set<string>();
  return {
    rows,
    async ensure(accountId) {
      const created = !rows.has(accountId);
      rows.add(accountId);
      return { created };
    },
    get: async (accountId) =>
      rows.has(accountId) ? { account_id: accountId, webhook_secret: 's', webhook_secret_hash: 'h', created_at: now() } : undefined,
  };
}

export function fakeRuns(): RunStore & { records: Map<string, RunRecord>; reports: Map<string, StepReport[]> } {
  const records = new Map<string, RunRecord>();
  const reports = new Map<string, StepReport[]>();
  /** The record, with its steps' latest reports in short, as the run item keeps them. */
  const withProgress = (runId: string): RunRecord | undefined => {
    const record = records.get(runId);
    const mine = reports.get(runId) ?? [];
    if (!record || !mine.length) return record;
    const short = (r: StepReport) => ({ integration: r.integration, part: r.part, outcome: r.outcome, at: r.at, ...(r.outcome === 'waiting' ? (r.details as { vendor: string; until: string }) : {}) });
    return { ...record, progress: Object.fromEntries(mine.map((r) => [`${r.integration}${r.part ? `#${r.part}` : ''}`, short(r)])) };
  };
  return {
    records,
    reports,
    async begin(runId, accountId, workflow) {
      if (records.has(runId)) return false;
      records.set(runId, { run_id: runId, account_id: accountId, status: 'running', attempt: -1, started_at: now(), ...(workflow ? { workflow } : {}) });
      return true;
    },
    get: async (runId) => withProgress(runId),
    getMany: async (runIds) => runIds.flatMap((id) => withProgress(id) ?? []),
    async saveResult(runId, accountId, attempt, result) {
      const current = records.get(runId);
      if (current && current.attempt > attempt) return;
      records.set(runId, {
        ...(current?.workflow ? { workflow: current.workflow } : {}),
        run_id: runId,
        account_id: accountId,
        status: result.success ? 'succeeded' : 'failed',
        attempt,
        result,
        started_at: current?.started_at ?? now(),
      });
    },
    async recordStep(runId, report) {
      const list = (reports.get(runId) ?? []).filter((r) => !(r.integration === report.integration && r.part === report.part));
      reports.set(runId, [...list, report]);
    },
    steps: async (runId) => reports.get(runId) ?? [],
  };
}

export interface FakeClaimRow<V> {
  holder?: string;
  leaseUntil?: number;
  value?: V;
  finishedAt?: string;
  expiresAt?: number;
  about: About;
}

/**
 * Claims (lib/store/claims.ts) in memory, as dynamodbClaims keeps them (the
 * same contract tests run against both): rows by key, a key object's values
 * joined by "|" (e.g. "acct|clickup#folder").
 */
export function fakeClaims<K, V>(policy: ClaimPolicy, options: { now?: () => Date } = {}): Claims<K, V> & { rows: Map<string, FakeClaimRow<V>> } {
  const rows = new Map<string, FakeClaimRow<V>>();
  const now = () => (options.now ?? (() => new Date()))().getTime();
  const id = (key: K) => (typeof key === 'string' ? key : Object.values(key as object).join('|'));
  const once = policy.kind === 'once';
  const forgotten = (row: FakeClaimRow<V>, at: number) => row.expiresAt !== undefined && row.expiresAt < at;
  const expiry = (at: number) => (policy.retentionMs === undefined ? {} : { expiresAt: at + policy.retentionMs });
  const holds = (row: FakeClaimRow<V> | undefined, holder: string): row is FakeClaimRow<V> => row?.holder === holder && (!once || row.finishedAt === undefined);
  return {
    rows,
    async acquire(key, holder, about = {}) {
      const at = now();
      const row = rows.get(id(key));
      const stale = row !== undefined && forgotten(row, at);
      if (row && !stale) {
        if (once && row.finishedAt !== undefined) return { state: 'finished', value: structuredClone(row.value!) };
        if (row.holder !== undefined && row.holder !== holder && row.leaseUntil! >= at) return { state: 'held' };
      }
      const { value, finishedAt, ...kept } = row ?? { about: {} };
      const next: FakeClaimRow<V> = { ...(stale ? kept : { ...kept, value, finishedAt }), about: { ...about, ...kept.about }, holder, leaseUntil: at + policy.leaseMs, ...expiry(at) };
      rows.set(id(key), next);
      return !once && next.value !== undefined ? { state: 'acquired', value: structuredClone(next.value) } : { state: 'acquired' };
    },
    async finish(key, holder, value, about = {}) {
      const row = rows.get(id(key));
      if (!holds(row, holder)) return false;
      const at = now();
      const { holder: _holder, leaseUntil: _lease, ...rest } = row;
      rows.set(id(key), { ...(once ? row : rest), value: structuredClone(value), finishedAt: new Date(at).toISOString(), ...expiry(at), about: { ...row.about, ...about } });
      return true;
    },
    async release(key, holder) {
      const row = rows.get(id(key));
      if (!holds(row, holder)) return;
      const { holder: _holder, leaseUntil: _lease, ...rest } = row;
      if (once) rows.delete(id(key));
      else rows.set(id(key), rest);
    },
    async record(key, value) {
      const at = now();
      rows.set(id(key), { ...(rows.get(id(key)) ?? { about: {} }), value: structuredClone(value), finishedAt: new Date(at).toISOString(), ...expiry(at) });
    },
    async value(key) {
      const row = rows.get(id(key));
      if (!row || forgotten(row, now()) || (once && row.finishedAt === undefined)) return undefined;
      return row.value === undefined ? undefined : structuredClone(row.value);
    },
  };
}

/** The provisioning ledger's policy on the claims fake. */
export const fakeLedger = (options: { now?: () => Date } = {}) => {
  const claims = fakeClaims<EntryKey, Record<string, unknown>>(LEDGER_CLAIMS, options);
  return { ...ledgerOf(claims), claims };
};

/** The delivery log: its claims as they are, by event key. */
export const fakeDeliveries = (options: { now?: () => Date } = {}) => fakeClaims<string, string>(DELIVERY_CLAIMS, options);

/** The booking tasks' policy on the claims fake. */
export const fakeBookingTasks = (options: { now?: () => Date } = {}) => {
  const claims = fakeClaims<BookingKey, StoredBookingTask>(BOOKING_TASK_CLAIMS, options);
  return { ...bookingTasksOf(claims), claims };
};

/** The real EMF writer, its lines kept (parsed) instead of written to stdout. */
export function capturedMetrics(): { metrics: Metrics; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  return { metrics: emfMetrics({ namespace: 'agency-backend', stage: 'test', write: (line) => lines.push(JSON.parse(line)) }), lines };
}

export function fakeFollowUps(): FollowUps & { items: Map<string, FollowUp> } {
  const items = new Map<string, FollowUp>();
  return {
    items,
    async open(accountId, runId, error) {
      const key = `${accountId}|${error.integration}`;
      const prev = items.get(key);
      items.set(key, {
        account_id: accountId,
        integration: error.integration,
        state: 'open',
        message: error.message,
        context: error.context,
        run_id: runId,
        first_failed_at: prev?.first_failed_at ?? now(),
        last_failed_at: now(),
        failures: (prev?.failures ?? 0) + 1,
      });
    },
    async resolve(accountId, integration) {
      const key = `${accountId}|${integration}`;
      const item = items.get(key);
      if (item?.state === 'open') items.set(key, { ...item, state: 'resolved', resolved_at: now() });
    },
    listOpen: async () => [...items.values()].filter((i) => i.state === 'open'),
  };
}

/** A task tool that keeps folders, lists and tasks by name, as ClickUp would. */
export function fakeTaskTool(): TaskTool & {
  folders: Map<string, string>;
  lists: Map<string, string>;
  tasks: Map<string, TaskRef & { listId: string; archived?: boolean }>;
  calls: number;
} {
  const folders = new Map<string, string>();
  const lists = new Map<string, string>();
  const tasks = new Map<string, TaskRef & { listId: string; archived?: boolean }>();
  let seq = 0;
  const tool = {
    folders,
    lists,
    tasks,
    calls: 0,
    async ensureFolder(name: string) {
      tool.calls++;
      const adopted = folders.has(name);
      if (!adopted) folders.set(name, `f${++seq}`);
      return { id: folders.get(name)!, name, adopted };
    },
    async ensureList(folderId: string, name: string) {
      tool.calls++;
      const key = `${folderId}/${name}`;
      const adopted = lists.has(key);
      if (!adopted) lists.set(key, `l${++seq}`);
      return { id: lists.get(key)!, name, adopted };
    },
    async ensureTasks(listId: string, wanted: NewTask[]) {
      tool.calls++;
      return Promise.all(wanted.map((t) => tool.ensureOne(listId, t)));
    },
    async ensureOne(listId: string, task: NewTask) {
      const existing = [...tasks.values()].find((t) => t.listId === listId && t.name === task.name && !t.archived);
      return existing ?? tool.createTask(listId, task);
    },
    async createTask(listId: string, task: NewTask) {
      const ref = { id: `t${++seq}`, name: task.name, url: `https://tasks/${seq}`, status: 'to do', listId };
      tasks.set(ref.id, ref);
      return ref;
    },
    async updateTask(taskId: string, patch: TaskPatch) {
      const t = tasks.get(taskId)!;
      const next = { ...t, ...(patch.name ? { name: patch.name } : {}), ...(patch.status ? { status: patch.status } : {}) };
      tasks.set(taskId, next);
      return next;
    },
    async setFolderArchived(folderId: string, archived: boolean) {
      tool.calls++;
      const listIds = new Set([...lists.entries()].filter(([key]) => key.startsWith(`${folderId}/`)).map(([, id]) => id));
      const changing = [...tasks.values()].filter((t) => listIds.has(t.listId) && (t.archived === true) !== archived);
      for (const t of changing) tasks.set(t.id, { ...t, archived });
      return { tasks: changing.length };
    },
  };
  return tool;
}

export function fakeStorage(): Storage & { folders: Set<string>; links: Map<string, string>; revoked: Set<string>; files: Map<string, string> } {
  const folders = new Set<string>();
  const links = new Map<string, string>();
  const revoked = new Set<string>();
  const files = new Map<string, string>();
  // Numbered for as long as the fake lives: a link made after one was revoked is a new one, as at Dropbox.
  let made = 0;
  /** Paths at or under this one. */
  const under = <T,>(paths: Iterable<T>, at: string, key: (p: T) => string) => [...paths].filter((p) => key(p) === at || key(p).startsWith(`${at}/`));
  return {
    folders,
    links,
    revoked,
    files,
    async ensureFolders(paths) {
      for (const p of paths) folders.add(p);
    },
    async sharedLink(path) {
      if (!links.has(path)) links.set(path, `https://share.example/${++made}`);
      return links.get(path)!;
    },
    async writeFile(path, content) {
      files.set(path, content);
      return { path, size: content.length };
    },
    async revokeSharedLink(url) {
      for (const [path, link] of links) if (link === url) links.delete(path);
      revoked.add(url);
    },
    async moveFolder(from, to) {
      if (!folders.has(from) && folders.has(to)) return;
      if (!folders.has(from)) throw new Error(`nothing at ${from}`);
      for (const p of under(folders, from, (f) => f)) {
        folders.delete(p);
        folders.add(to + p.slice(from.length));
      }
      for (const [p, content] of under(files, from, ([f]) => f)) {
        files.delete(p);
        files.set(to + p.slice(from.length), content);
      }
      for (const [p, link] of under(links, from, ([f]) => f)) {
        links.delete(p);
        links.set(to + p.slice(from.length), link);
      }
    },
    async deleteFolder(path) {
      for (const p of under(folders, path, (f) => f)) folders.delete(p);
      for (const [p] of under(files, path, ([f]) => f)) files.delete(p);
      for (const [p] of under(links, path, ([f]) => f)) links.delete(p);
    },
  };
}

/** Sends each idempotency key once; while `failing`, every send fails as the vendor's would after its retries. */
export function fakeMailer(): Mailer & { sent: OutgoingEmail[]; failing: boolean } {
  const sent: OutgoingEmail[] = [];
  const byKey = new Map<string, string>();
  const mailer = {
    sent,
    failing: false,
    async send(email: OutgoingEmail) {
      if (mailer.failing) throw new VendorError('resend', 'resend: send answered 500 (gave up after 3 attempts)', { transient: true, operation: 'send' });
      if (!byKey.has(email.idempotencyKey)) {
        byKey.set(email.idempotencyKey, `m${sent.length + 1}`);
        sent.push(email);
      }
      return { id: byKey.get(email.idempotencyKey)! };
    },
  };
  return mailer;
}

export function fakeChat(): Chat & { posted: ChatMessage[] } {
  const posted: ChatMessage[] = [];
  return {
    posted,
    async post(message) {
      posted.push(message);
      return { ts: String(posted.length) };
    },
  };
}

export function fakeCrm(): Crm & { leads: Map<string, LeadDetails & { contacts: string[]; statusId?: string }> } {
  const leads = new Map<string, LeadDetails & { contacts: string[]; statusId?: string }>();
  return {
    leads,
    findLeadByEmail: async (email) => [...leads.entries()].find(([, l]) => l.contacts.includes(email.toLowerCase()))?.[0],
    // The host itself, as the Close adapter confirms it: acme.com is not notacme.com.
    findLeadByDomain: async (domain) =>
      [...leads.entries()].find(([, l]) => l.website && new URL(l.website).hostname.replace(/^www\./, '') === domain.toLowerCase())?.[0],
    async createLead(details) {
      const id = `lead_${leads.size + 1}`;
      leads.set(id, { ...details, contacts: [details.contact.email.toLowerCase()] });
      return id;
    },
    async updateLead(id, details) {
      const lead = leads.get(id)!;
      const contacts = lead.contacts.includes(details.contact.email.toLowerCase()) ? lead.contacts : [...lead.contacts, details.contact.email.toLowerCase()];
      leads.set(id, { ...lead, ...details, contacts });
    },
    async setLeadStatus(id, statusId) {
      const lead = leads.get(id);
      if (!lead) throw new Error(`no lead ${id}`);
      leads.set(id, { ...lead, statusId });
    },
    async deleteContacts(id) {
      const lead = leads.get(id);
      if (!lead) return { contacts: 0 };
      leads.set(id, { ...lead, contacts: [] });
      return { contacts: lead.contacts.length };
    },
  };
}

/** A logger that keeps its entries, to check what was (and was not) logged. */
export function recordingLogger(): Logger & { entries: { level: string; message: string; fields?: LogFields }[] } {
  const entries: { level: string; message: string; fields?: LogFields }[] = [];
  const logger = {
    entries,
    debug: (message: string, fields?: LogFields) => void entries.push({ level: 'debug', message, fields }),
    info: (message: string, fields?: LogFields) => void entries.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: LogFields) => void entries.push({ level: 'warn', message, fields }),
    error: (message: string, fields?: LogFields) => void entries.push({ level: 'error', message, fields }),
    with: () => logger,
  };
  return logger;
}

/** One startOrResume the workflow fake was asked for. */
export interface WorkflowStart {
  runId: string;
  input: Record<string, unknown>;
  seenBefore?: boolean;
}

/**
 * A workflow (lib/workflows/workflow.ts) in memory. `calls` keeps every start
 * asked for, in order, failed ones too; `started` each run's first input from
 * a start that succeeded, as one execution per run id would. `failNext(n)`
 * makes the next n starts throw (after being recorded); `onStart` is what a
 * run does as it starts, and a start fails if it throws. `status` answers what
 * `setStatus` set last, RUNNING at first.
 */
export function fakeWorkflow(onStart: (runId: string, input: Record<string, unknown>) => void | Promise<void> = () => {}) {
  const calls: WorkflowStart[] = [];
  const started = new Map<string, Record<string, unknown>>();
  let failing = 0;
  let status: ExecutionStatus = 'RUNNING';
  const workflow: Workflow & { calls: WorkflowStart[]; started: typeof started; failNext(times?: number): void; setStatus(s: ExecutionStatus): void } = {
    calls,
    started,
    failNext: (times = 1) => void (failing += times),
    setStatus: (s) => void (status = s),
    async startOrResume(runId, input, options): Promise<RunHandle> {
      calls.push({ runId, input, seenBefore: options?.seenBefore });
      if (failing > 0) {
        failing--;
        throw new Error('StartExecution throttled');
      }
      await onStart(runId, input);
      if (!started.has(runId)) started.set(runId, input);
      return { executionArn: `arn:exec:${runId}`, attempt: 0 };
    },
    status: async () => status,
  };
  return workflow;
}

/** A queue (lib/workflows/queue.ts): each name queued once, its job kept; `failNext(n)` makes the next n enqueues throw. */
export function fakeQueue<J>(): Queue<J> & { jobs: Map<string, J>; failNext(times?: number): void } {
  const jobs = new Map<string, J>();
  let failing = 0;
  return {
    jobs,
    failNext: (times = 1) => void (failing += times),
    async enqueue(name, job) {
      if (failing > 0) {
        failing--;
        throw new Error('Step Functions is unavailable');
      }
      if (jobs.has(name)) return 'already-queued';
      jobs.set(name, structuredClone(job));
      return 'queued';
    },
  };
}

/** A scraper that finds these pages at any address (and one page robots.txt forbids), or throws `fail`; `calls` counts the scrapes asked for. */
export function fakeScraper(pages: ScrapedPage[], fail?: Error): SiteScraper & { calls: number } {
  const scraper = {
    calls: 0,
    async scrape(url: string) {
      scraper.calls++;
      if (fail) throw fail;
      return { source: 'crawler' as const, startUrl: url, pages, skipped: { robots: 1 } };
    },
  };
  return scraper;
}

/** The pace schedule (lib/integrations/pacing.ts) in memory, as the DynamoDB one keeps it: per key, when its next slot is free. */
export function fakePaceSchedule(): PaceSchedule & { nextAt: Map<string, number> } {
  const nextAt = new Map<string, number>();
  return {
    nextAt,
    async book(key, count, intervalMs, now) {
      const first = Math.max(now, nextAt.get(key) ?? 0);
      nextAt.set(key, first + count * intervalMs);
      return first;
    },
    async holdUntil(key, at) {
      if ((nextAt.get(key) ?? 0) < at) nextAt.set(key, at);
    },
  };
}
