import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Account, ErasureRecord, Member, Offboarding } from '../../../lib/accounts/accounts.ts';
import { dynamodbLifecycle } from '../../../lib/accounts/dynamodb-lifecycle.ts';
import { ERASED_FIELDS } from '../../../lib/accounts/lifecycle.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const AT = '2026-03-01T10:00:00.000Z';
const lifecycle = () => dynamodbLifecycle({ ...d, now: () => new Date(AT) });

const offboarding = (runId: string, trigger: Offboarding['trigger'] = 'request'): Offboarding => ({
  run_id: runId,
  trigger,
  reason: 'asked',
  requested_by: 'user-owner',
  requested_at: AT,
  not_before: AT,
});

/** An account row as given, each test its own id. */
async function seed(id: string, fields: Partial<Account> = {}): Promise<void> {
  const account: Account = {
    id,
    status: 'active',
    company_name: 'Acme',
    company_url: 'https://acme.example',
    company_domain: 'acme.example',
    contact_email: 'ann@acme.example',
    phone: '+1 555 0100',
    location: 'Berlin',
    timezone: 'Europe/Berlin',
    requested_plan: 'pro',
    metadata: { source: 'form' },
    portal_slug: 'acme',
    dashboard_slug: 'acme',
    storage_path: '/Clients/acme',
    storage_link: 'https://share.example/1',
    stripe_customer_id: 'cus_1',
    subscription_status: 'canceled',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
  await d.db.send(new PutCommand({ TableName: d.tables.accounts, Item: account }));
}
const read = async (id: string) => (await d.db.send(new GetCommand({ TableName: d.tables.accounts, Key: { id }, ConsistentRead: true }))).Item as Account | undefined;
const member = async (accountId: string, email: string) =>
  (await d.db.send(new GetCommand({ TableName: d.tables.account_members, Key: { account_id: accountId, email }, ConsistentRead: true }))).Item as Member | undefined;

describe("an account's life cycle in DynamoDB", () => {
  it('records one offboarding at a time: the same again, or one replacing it by name, but no other', async () => {
    await seed('lc-schedule');
    const store = lifecycle();
    const first = offboarding('run-sub', 'subscription');
    expect(await store.schedule('lc-schedule', first)).toBe(true);
    expect(await store.schedule('lc-schedule', first)).toBe(true);
    expect(await store.schedule('lc-schedule', offboarding('run-other'))).toBe(false);
    expect(await store.schedule('lc-schedule', offboarding('run-other'), 'run-not-recorded')).toBe(false);
    expect((await read('lc-schedule'))!.offboarding).toEqual(first);

    expect(await store.schedule('lc-schedule', offboarding('run-asked'), 'run-sub')).toBe(true);
    expect(await read('lc-schedule')).toMatchObject({ status: 'active', offboarding: offboarding('run-asked'), updated_at: AT });
  });

  it('records none on an account that is not open, or does not exist (creating nothing)', async () => {
    await seed('lc-closed', { status: 'closed' });
    await seed('lc-offboarding', { status: 'offboarding', offboarding: offboarding('run-1') });
    const store = lifecycle();
    expect(await store.schedule('lc-closed', offboarding('run-1'))).toBe(false);
    expect(await store.schedule('lc-offboarding', offboarding('run-2'), 'run-1')).toBe(false);
    expect(await store.schedule('lc-missing', offboarding('run-1'))).toBe(false);
    expect((await read('lc-closed'))!.offboarding).toBeUndefined();
    expect((await read('lc-offboarding'))!.offboarding!.run_id).toBe('run-1');
    expect(await read('lc-missing')).toBeUndefined();
  });

  it('forgets a waiting offboarding only by its run, and only while the account is open', async () => {
    await seed('lc-unschedule', { offboarding: offboarding('run-1', 'subscription') });
    await seed('lc-unschedule-begun', { status: 'offboarding', offboarding: offboarding('run-1', 'subscription') });
    const store = lifecycle();
    expect(await store.unschedule('lc-unschedule', 'run-2')).toBe(false);
    expect((await read('lc-unschedule'))!.offboarding).toBeDefined();
    expect(await store.unschedule('lc-unschedule', 'run-1')).toBe(true);
    expect((await read('lc-unschedule'))!.offboarding).toBeUndefined();
    expect(await store.unschedule('lc-unschedule', 'run-1')).toBe(false);
    expect(await store.unschedule('lc-unschedule-begun', 'run-1')).toBe(false);
    expect((await read('lc-unschedule-begun'))!.offboarding).toBeDefined();
  });

  it('begins only the recorded run, on an open account, and again when it has begun', async () => {
    await seed('lc-begin-none');
    await seed('lc-begin', { offboarding: offboarding('run-1') });
    await seed('lc-begin-closed', { status: 'closed', offboarding: offboarding('run-1') });
    const store = lifecycle();
    expect(await store.begin('lc-begin-none', 'run-1')).toBe(false);
    expect(await store.begin('lc-begin', 'run-2')).toBe(false);
    expect((await read('lc-begin'))!.status).toBe('active');
    expect(await store.begin('lc-begin', 'run-1')).toBe(true);
    expect((await read('lc-begin'))!.status).toBe('offboarding');
    expect(await store.begin('lc-begin', 'run-1')).toBe(true);
    expect(await store.begin('lc-begin-closed', 'run-1')).toBe(false);
    expect((await read('lc-begin-closed'))!.status).toBe('closed');
    expect(await store.begin('lc-begin-missing', 'run-1')).toBe(false);
    expect(await read('lc-begin-missing')).toBeUndefined();
  });

  it('moves the status only from the statuses given, with the fields set beside it (reserved words among them)', async () => {
    await seed('lc-transition', { status: 'offboarding' });
    const store = lifecycle();
    expect(await store.transition('lc-transition', ['provisioning', 'active', 'needs_attention'], 'active')).toBe(false);
    expect((await read('lc-transition'))!.status).toBe('offboarding');
    // `location` and `timezone`: `location` is one of DynamoDB's reserved words; an undefined field is left as it is.
    expect(await store.transition('lc-transition', ['offboarding'], 'closed', { closed_at: AT, location: 'Paris', timezone: undefined })).toBe(true);
    expect(await read('lc-transition')).toMatchObject({ status: 'closed', closed_at: AT, location: 'Paris', timezone: 'Europe/Berlin', updated_at: AT });
    expect(await store.transition('lc-transition-missing', ['active'], 'closed')).toBe(false);
    expect(await read('lc-transition-missing')).toBeUndefined();
  });

  it('reopens only a closed account, forgetting its offboarding and when it closed', async () => {
    await seed('lc-reopen', { status: 'closed', closed_at: AT, offboarding: offboarding('run-1') });
    await seed('lc-reopen-open', { offboarding: offboarding('run-1') });
    const store = lifecycle();
    const at = new Date('2026-04-01T00:00:00.000Z');
    expect(await store.reopen('lc-reopen-open', 'user-owner', at, 'provisioning')).toBe(false);
    expect((await read('lc-reopen-open'))!.offboarding).toBeDefined();
    expect(await store.reopen('lc-reopen', 'user-owner', at, 'provisioning')).toBe(true);
    const reopened = (await read('lc-reopen'))!;
    expect(reopened).toMatchObject({ status: 'provisioning', reopened_at: at.toISOString(), reopened_by: 'user-owner' });
    expect(reopened).not.toHaveProperty('closed_at');
    expect(reopened).not.toHaveProperty('offboarding');
    expect(await store.reopen('lc-reopen', 'user-owner', at, 'provisioning')).toBe(false);
  });

  it("erases a closed account's details, keeping its id, status, dates, billing ids and the erasure record", async () => {
    await seed('lc-erase', { status: 'closed', closed_at: AT, offboarding: offboarding('run-1') });
    await seed('lc-erase-open');
    const store = lifecycle();
    const progress: ErasureRecord = { requested_by: 'admin-key', requested_at: AT, places: { close: { outcome: 'failed', detail: 'close: 503' } } };
    await store.noteErasure('lc-erase', progress);
    expect((await read('lc-erase'))!.erasure).toEqual(progress);
    await store.noteErasure('lc-erase-open', progress);
    expect((await read('lc-erase-open'))!.erasure).toBeUndefined();

    const record: ErasureRecord = { ...progress, erased_at: AT, places: { close: { outcome: 'erased', detail: 'contacts deleted' } } };
    expect(await store.erase('lc-erase-open', record)).toBe(false);
    expect((await read('lc-erase-open'))!.company_name).toBe('Acme');
    expect(await store.erase('lc-erase', record)).toBe(true);
    const erased = (await read('lc-erase'))!;
    expect(Object.keys(erased).sort()).toEqual(['closed_at', 'created_at', 'erasure', 'id', 'status', 'stripe_customer_id', 'subscription_status', 'updated_at']);
    for (const field of ERASED_FIELDS) expect(erased).not.toHaveProperty(field);
    expect(erased).toMatchObject({ id: 'lc-erase', status: 'erased', erasure: record, stripe_customer_id: 'cus_1' });
    expect(await store.erase('lc-erase', record)).toBe(false);
  });

  it("forgets the shared link on the account and every member record of it, and no other account's", async () => {
    await seed('lc-link');
    await seed('lc-link-other');
    for (const [accountId, email] of [
      ['lc-link', 'ann@acme.example'],
      ['lc-link', 'bob@acme.example'],
      ['lc-link-other', 'ann@acme.example'],
    ] as const) {
      const row: Member = { account_id: accountId, email, role: 'member', status: 'active', storage_link: 'https://share.example/1', storage_path: '/Clients/acme', created_at: AT, updated_at: AT };
      await d.db.send(new PutCommand({ TableName: d.tables.account_members, Item: row }));
    }
    await lifecycle().forgetStorageLink('lc-link');
    const account = (await read('lc-link'))!;
    expect(account).not.toHaveProperty('storage_link');
    expect(account.storage_path).toBe('/Clients/acme');
    for (const email of ['ann@acme.example', 'bob@acme.example']) {
      const m = (await member('lc-link', email))!;
      expect(m).not.toHaveProperty('storage_link');
      expect(m.storage_path).toBe('/Clients/acme');
    }
    expect((await member('lc-link-other', 'ann@acme.example'))!.storage_link).toBe('https://share.example/1');
    expect((await read('lc-link-other'))!.storage_link).toBe('https://share.example/1');
  });
});
