// Remembering what was made, over the claims fake (the same contract as
// DynamoDB, tests/lib/store/claims.test.ts).
import { describe, expect, it } from 'vitest';
import { LEDGER_CLAIMS, remembered } from '../../../lib/provisioning/ledger.ts';
import { fakeLedger } from '../../support/fakes.ts';

const entry = (maker: string, resource = 'clickup#folder') => ({ accountId: 'acct', resource, maker });
const noWait = { waitMs: 0 };

describe('remembered', () => {
  it('gives the claim back when making fails, so the next attempt of any run makes it at once', async () => {
    const ledger = fakeLedger();
    await expect(remembered(ledger, entry('run-a'), () => Promise.reject(new Error('vendor down')))).rejects.toThrow('vendor down');
    expect(await remembered(ledger, entry('run-b'), async () => ({ id: 'f-b' }), noWait)).toEqual({ id: 'f-b' });
  });

  it('lets a run take its own claim again (its step died mid-way), keeps other runs out, and lets a lapsed claim be taken over', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const ledger = fakeLedger({ now: () => now });
    await ledger.claims.acquire({ accountId: 'acct', resource: 'clickup#folder' }, 'run-a');
    await expect(remembered(ledger, entry('run-b'), async () => ({ id: 'f-b' }), noWait)).rejects.toMatchObject({ name: 'VendorUnavailable', vendor: 'clickup' });
    expect(await remembered(ledger, entry('run-a'), async () => ({ id: 'f-a' }), noWait)).toEqual({ id: 'f-a' });

    await ledger.claims.acquire({ accountId: 'acct', resource: 'clickup#list' }, 'run-a');
    now = new Date(now.getTime() + LEDGER_CLAIMS.leaseMs + 1);
    expect(await remembered(ledger, entry('run-b', 'clickup#list'), async () => ({ id: 'l-b' }), noWait)).toEqual({ id: 'l-b' });
    // The run that died can no longer record anything over it.
    expect(await ledger.claims.finish({ accountId: 'acct', resource: 'clickup#list' }, 'run-a', { id: 'l-a' })).toBe(false);
    expect(await ledger.get('acct', 'clickup#list')).toEqual({ id: 'l-b' });
  });

  it('waits for another run making the same thing, and answers what it made', async () => {
    const ledger = fakeLedger();
    await ledger.claims.acquire({ accountId: 'acct', resource: 'close#lead' }, 'run-a');
    let made = 0;
    const sleep = async () => {
      if (++made === 2) await ledger.claims.finish({ accountId: 'acct', resource: 'close#lead' }, 'run-a', { id: 'lead-a' });
    };
    expect(await remembered(ledger, entry('run-b', 'close#lead'), async () => ({ id: 'lead-b' }), { sleep })).toEqual({ id: 'lead-a' });
  });
});
