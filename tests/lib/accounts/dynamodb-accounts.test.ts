import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { assignPortalSlug } from '../../../lib/accounts/assign-portal-slug.ts';
import { dynamodbAccounts, dynamodbSlugs } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbLifecycle } from '../../../lib/accounts/dynamodb-lifecycle.ts';
import { dynamodbIntegrations, hashSecret } from '../../../lib/accounts/integrations.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();
const stores = () => ({ accounts: dynamodbAccounts(d), slugs: dynamodbSlugs(d) });

describe('account and member records in DynamoDB', () => {
  it('keeps one record per account and address: concurrent claims in one account make one, and every account has its own', async () => {
    const { accounts } = stores();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => accounts.claimMember({ email: 'race@example.com', account_id: 'acct-race', role: i % 2 ? 'owner' : 'member' })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = results.find((r) => r.created)!.member;
    for (const r of results) expect(r.member).toEqual(winner);
    expect(winner.status).toBe('provisioning');
    // Another account writing the same address makes its own record and leaves this one.
    expect(await accounts.claimMember({ email: 'race@example.com', account_id: 'acct-other', role: 'member', name: 'Other' })).toMatchObject({ created: true });
    expect(await accounts.getMember('acct-race', 'race@example.com')).toEqual(winner);
    expect(await accounts.getMember('acct-other', 'race@example.com')).toMatchObject({ account_id: 'acct-other', name: 'Other' });
    expect(await accounts.getMember('acct-none', 'race@example.com')).toBeUndefined();
  });

  it('creates an account in provisioning and updates details without losing its status', async () => {
    const { accounts } = stores();
    const first = await accounts.saveAccountDetails('acct-details', { company_name: 'Acme', phone: '+1 555' });
    expect(first).toMatchObject({ id: 'acct-details', status: 'provisioning', company_name: 'Acme', phone: '+1 555' });
    await dynamodbLifecycle(d).transition('acct-details', ['provisioning'], 'active');
    const second = await accounts.saveAccountDetails('acct-details', { company_name: 'Acme Inc', phone: undefined });
    expect(second).toMatchObject({ status: 'active', company_name: 'Acme Inc', phone: '+1 555' });
    expect(second.created_at).toBe(first.created_at);
  });

  it('gives twenty concurrent "Acme" accounts twenty different slugs', async () => {
    const deps = stores();
    const ids = Array.from({ length: 20 }, (_, i) => `acme-${i}`);
    for (const id of ids) await deps.accounts.saveAccountDetails(id, { company_name: 'Acme' });
    const slugs = await Promise.all(ids.map((id) => assignPortalSlug(deps, id)));
    const portal = slugs.map((s) => s.portalSlug);
    expect(new Set(portal).size).toBe(20);
    expect(portal).toContain('acme');
    for (const s of slugs) expect(s.dashboardSlug).toBe(s.portalSlug);
  });

  it('keeps an account slug on re-runs, also when runs for the same account race', async () => {
    const deps = stores();
    await deps.accounts.saveAccountDetails('same-acct', { company_name: 'Globex' });
    const runs = await Promise.all(Array.from({ length: 5 }, () => assignPortalSlug(deps, 'same-acct')));
    expect(new Set(runs.map((r) => r.portalSlug))).toEqual(new Set(['globex']));
    expect((await assignPortalSlug(deps, 'same-acct')).portalSlug).toBe('globex');
    // Only the kept slug stays reserved: the losers gave theirs back.
    const reserved = await d.db.send(new GetCommand({ TableName: d.tables.slugs, Key: { slug: 'globex-2' } }));
    expect(reserved.Item).toBeUndefined();
  });

  it('sets the status of an account’s members, never over a removal that lands between its read and its write', async () => {
    const accounts = dynamodbAccounts(d);
    await accounts.claimMember({ email: 'stays@example.com', account_id: 'acct-status', role: 'owner' });
    await accounts.claimMember({ email: 'goes@example.com', account_id: 'acct-status', role: 'member' });
    // A membership sync marks one removed right after the members were read.
    const racing = {
      send: async (command: object) => {
        const answer = await d.db.send(command as never);
        if (command instanceof QueryCommand) {
          await d.db.send(
            new UpdateCommand({
              TableName: d.tables.account_members,
              Key: { account_id: 'acct-status', email: 'goes@example.com' },
              UpdateExpression: 'SET #status = :removed',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':removed': 'removed' },
            }),
          );
        }
        return answer;
      },
    };
    await dynamodbAccounts({ db: racing as never, tables: d.tables }).setMemberStatusForAccount('acct-status', 'active');
    expect(await accounts.getMember('acct-status', 'stays@example.com')).toMatchObject({ status: 'active' });
    expect(await accounts.getMember('acct-status', 'goes@example.com')).toMatchObject({ status: 'removed' });
  });

  it('records storage on the member, keeping the first creation time', async () => {
    const { accounts } = stores();
    await accounts.claimMember({ email: 'store@example.com', account_id: 'acct-store', role: 'owner' });
    await accounts.setMemberStorage('acct-store', 'store@example.com', { link: 'https://l/1', path: '/Clients/x', createdAt: '2026-01-01T00:00:00.000Z' });
    await accounts.setMemberStorage('acct-store', 'store@example.com', { link: 'https://l/1', path: '/Clients/x', createdAt: '2026-02-02T00:00:00.000Z' });
    expect(await accounts.getMember('acct-store', 'store@example.com')).toMatchObject({
      storage_link: 'https://l/1',
      storage_path: '/Clients/x',
      storage_created_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('ensures one integration row with a webhook secret, indexed by its hash', async () => {
    const integrations = dynamodbIntegrations(d);
    const results = await Promise.all(Array.from({ length: 5 }, () => integrations.ensure('acct-int')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const row = (await integrations.get('acct-int'))!;
    expect(row.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row.webhook_secret_hash).toBe(hashSecret(row.webhook_secret));
    const index = await d.db.send(new GetCommand({ TableName: d.tables.webhook_secrets, Key: { secret_hash: row.webhook_secret_hash } }));
    expect(index.Item).toMatchObject({ account_id: 'acct-int', status: 'active' });
  });
});
