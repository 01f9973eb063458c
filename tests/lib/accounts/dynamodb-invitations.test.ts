// Invitations in DynamoDB (dynalite): used once, one open per account and
// address however many callers race, and the account's removal of a person
// closing every invitation to them, also one being written at that moment.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbInvitations } from '../../../lib/accounts/dynamodb-invitations.ts';
import type { Invitation } from '../../../lib/accounts/invitations.ts';
import type { DynamoDBDocumentClient } from '../../../lib/store/dynamodb.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const store = (options: { db?: DynamoDBDocumentClient; now?: () => Date } = {}) => dynamodbInvitations({ db: options.db ?? d.db, tables: d.tables, now: options.now });

const invitation = (overrides: Partial<Invitation> = {}): Invitation => ({
  id: crypto.randomUUID(),
  account_id: crypto.randomUUID(),
  email: `${crypto.randomUUID()}@example.com`,
  role: 'member',
  status: 'pending',
  invited_by: { kind: 'service' },
  created_at: new Date().toISOString(),
  expires_at: Math.floor(Date.now() / 1000) + 3600,
  ...overrides,
});
/** Another invitation of the same account and address. */
const again = (first: Invitation, overrides: Partial<Invitation> = {}) => invitation({ account_id: first.account_id, email: first.email, ...overrides });

describe('invitations in DynamoDB', () => {
  it('are accepted by one of many at once, and never when lapsed or revoked', async () => {
    const invitations = store();
    const open = invitation();
    expect(await invitations.open(open)).toBe('opened');
    const accepted = await Promise.all(Array.from({ length: 10 }, (_, i) => invitations.accept(open.id, `user-${i}`, new Date())));
    expect(accepted.filter(Boolean)).toHaveLength(1);
    const lapsed = invitation({ expires_at: Math.floor(Date.now() / 1000) - 1 });
    expect(await invitations.open(lapsed)).toBe('opened');
    expect(await invitations.accept(lapsed.id, 'u', new Date())).toBe(false);
    const revoked = invitation();
    await invitations.open(revoked);
    expect(await invitations.revoke(revoked.id, 'owner', new Date())).toBe(true);
    expect(await invitations.accept(revoked.id, 'u', new Date())).toBe(false);
    expect(await invitations.revoke(open.id, 'owner', new Date())).toBe(false);
  });

  it('are listed per account and per address, newest first; the row that guards an address is no invitation', async () => {
    const invitations = store();
    const first = invitation({ created_at: '2026-01-01T00:00:00.000Z' });
    const second = again(first, { created_at: '2026-01-02T00:00:00.000Z' });
    await invitations.open(first);
    await invitations.revoke(first.id, 'owner', new Date());
    expect(await invitations.open(second)).toBe('opened');
    expect((await invitations.ofAccount(first.account_id)).map((i) => i.id)).toEqual([second.id, first.id]);
    expect((await invitations.toEmail(first.email)).map((i) => i.id)).toEqual([second.id, first.id]);
    expect(await invitations.get(`address#${first.account_id}#${first.email}`)).toBeUndefined();
  });

  it('open one of ten invitations of one address sent at once; the others are pending and leave nothing', async () => {
    const invitations = store();
    const first = invitation();
    const all = [first, ...Array.from({ length: 9 }, () => again(first))];
    const openings = await Promise.all(all.map((i) => invitations.open(i)));
    expect(openings.filter((o) => o === 'opened')).toHaveLength(1);
    expect(openings.filter((o) => o === 'pending')).toHaveLength(9);
    expect(await invitations.ofAccount(first.account_id)).toHaveLength(1);
  });

  it('open another once the open one is accepted, revoked or lapsed', async () => {
    const now = { at: Date.now() };
    const invitations = store({ now: () => new Date(now.at) });
    const first = invitation();
    await invitations.open(first);
    expect(await invitations.open(again(first))).toBe('pending');
    await invitations.accept(first.id, 'u', new Date(now.at));
    const second = again(first);
    expect(await invitations.open(second)).toBe('opened');
    await invitations.revoke(second.id, 'owner', new Date(now.at));
    const third = again(first, { expires_at: Math.floor(now.at / 1000) + 60 });
    expect(await invitations.open(third)).toBe('opened');
    now.at += 61_000;
    expect(await invitations.open(again(first, { expires_at: Math.floor(now.at / 1000) + 3600 }))).toBe('opened');
  });

  it('take over an address whose invitation was closed without freeing it, or never written once its writer’s lease is over', async () => {
    const now = { at: Date.now() };
    const invitations = store({ now: () => new Date(now.at) });
    const first = invitation();
    // A writer that stopped after accepting, before freeing the address: the address still names it.
    await invitations.open(first);
    await d.db.send(new PutCommand({ TableName: d.tables.invitations, Item: { ...first, status: 'accepted' } }));
    expect(await invitations.open(again(first))).toBe('opened');

    // A writer that stopped after taking the address, before writing its invitation.
    const orphan = invitation();
    const key = { id: `address#${orphan.account_id}#${orphan.email}`, kind: 'address', open_id: 'never-written', open_until: orphan.expires_at, opened_at: now.at };
    await d.db.send(new PutCommand({ TableName: d.tables.invitations, Item: key }));
    expect(await invitations.open(orphan)).toBe('pending');
    now.at += 61_000;
    expect(await invitations.open(again(orphan, { expires_at: Math.floor(now.at / 1000) + 3600 }))).toBe('opened');
  });

  it('close every invitation to a removed person, bar syncs from inviting them again, and still let an owner', async () => {
    const invitations = store();
    const first = invitation();
    await invitations.open(first);
    await invitations.closeTo(first.account_id, first.email, 'member-removed', new Date());
    expect(await invitations.get(first.id)).toMatchObject({ status: 'revoked', revoked_by: 'member-removed' });
    expect(await invitations.open(again(first), { unlessBarred: true })).toBe('barred');
    expect(await invitations.open(again(first))).toBe('opened');

    // An owner's or admin's revocation bars syncs too; the sync's own does not.
    const revoked = invitation();
    await invitations.open(revoked);
    await invitations.revoke(revoked.id, 'owner-id', new Date(), { bar: true });
    expect(await invitations.open(again(revoked), { unlessBarred: true })).toBe('barred');
    const bySync = invitation();
    await invitations.open(bySync);
    await invitations.revoke(bySync.id, 'membership-sync', new Date());
    expect(await invitations.open(again(bySync), { unlessBarred: true })).toBe('opened');
  });

  it('revoke an invitation whose writer took the address just before the person was removed, and wrote it just after', async () => {
    const first = invitation();
    let closing: Promise<void> | undefined;
    // The removal runs between the writer taking the address and writing the invitation.
    const db = {
      send: async (command: unknown) => {
        if (command instanceof PutCommand && !closing) {
          closing = store().closeTo(first.account_id, first.email, 'member-removed', new Date());
          await closing;
        }
        return d.db.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    expect(await store({ db }).open(first, { unlessBarred: true })).toBe('closed');
    expect(await store().get(first.id)).toMatchObject({ status: 'revoked' });
  });

  it('record that a due invitation was sent', async () => {
    const invitations = store();
    const due = invitation({ mail: 'due' });
    await invitations.open(due);
    await invitations.markSent(due.id, new Date('2026-03-01T10:00:00Z'));
    expect(await invitations.get(due.id)).toMatchObject({ mail: 'sent', mailed_at: '2026-03-01T10:00:00.000Z' });
  });
});
