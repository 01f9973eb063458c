// updateBilling under contention: many writers on one account each land once
// (losers pause, re-read and re-decide); one that keeps losing gets a
// retryable answer (409 with Retry-After), never a server error.
import { describe, expect, it } from 'vitest';
import type { Account } from '../../../lib/accounts/accounts.ts';
import { BillingBusy, updateBilling, type Billing } from '../../../lib/payments/billing.ts';
import { toErrorAnswer } from '../../../lib/http/errors.ts';
import { fakeBilling } from './fakes.ts';

const account = (): Account => ({ id: 'acct-1', status: 'active', created_at: 'then', updated_at: 'then', billing_events: [], billing_version: 0 });
const remember = (id: string) => (current: Billing) => ({ outcome: 'applied', next: { ...current, recentEvents: [...current.recentEvents, id] } });

describe('updateBilling', () => {
  it('lands every one of 30 concurrent writers on one account, each once', async () => {
    const accounts = new Map([['acct-1', account()]]);
    const store = fakeBilling(accounts);
    const ids = Array.from({ length: 30 }, (_, i) => `evt_${i}`);
    await Promise.all(ids.map((id) => updateBilling(store, 'acct-1', remember(id))));
    expect([...accounts.get('acct-1')!.billing_events!].sort()).toEqual([...ids].sort());
    expect(store.writes).toBe(30);
  });

  it('answers a writer that loses every round with 409 and Retry-After, having written nothing', async () => {
    const accounts = new Map([['acct-1', account()]]);
    const store = fakeBilling(accounts);
    const alwaysBeaten = { billingOf: store.billingOf, saveBilling: async () => false };
    const pauses: number[] = [];
    const error = await updateBilling(alwaysBeaten, 'acct-1', remember('evt_x'), async (ms) => void pauses.push(ms)).catch((e) => e);
    expect(error).toBeInstanceOf(BillingBusy);
    expect(pauses).toHaveLength(9);
    expect(pauses.every((ms) => ms >= 0 && ms <= 40)).toBe(true);
    const answer = toErrorAnswer(error, 'req-1');
    expect(answer.status).toBe(409);
    expect(answer.headers).toMatchObject({ 'retry-after': '1' });
    expect(accounts.get('acct-1')!.billing_events).toEqual([]);
  });
});
