// The delivery log in webhook_events, against dynalite.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DeliveryInProgress, takeEffectOnce } from '../../../lib/deliveries/deliveries.ts';
import { dynamodbDeliveries } from '../../../lib/deliveries/dynamodb-deliveries.ts';
import { useDynamo } from '../../support/dynamo.ts';

const d = useDynamo();

describe('the delivery log', () => {
  it('lets one of many concurrent copies of an event do the work, answers the others at once, and remembers the outcome for 30 days', async () => {
    const deliveries = dynamodbDeliveries(d);
    const key = `stripe#evt_${crypto.randomUUID()}`;
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    let runs = 0;
    const work = async () => {
      runs++;
      await done;
      return { outcome: 'applied', accountId: 'acct-found' };
    };
    const copies = Array.from({ length: 10 }, () => takeEffectOnce({ deliveries }, key, { source: 'stripe' }, work));
    const early = await Promise.allSettled(copies.slice(1));
    finish();
    expect(await copies[0]).toEqual({ first: true, result: { outcome: 'applied', accountId: 'acct-found' } });
    for (const copy of early) expect(copy).toMatchObject({ status: 'rejected', reason: expect.any(DeliveryInProgress) });
    expect(runs).toBe(1);
    expect(await takeEffectOnce({ deliveries }, key, { source: 'stripe' }, work)).toEqual({ first: false, outcome: 'applied' });

    const row = (await d.db.send(new GetCommand({ TableName: d.tables.webhook_events, Key: { event_key: key } }))).Item!;
    expect(row).toMatchObject({ event_key: key, value: 'applied', source: 'stripe', account_id: 'acct-found', finished_at: expect.any(String), received_at: expect.any(String) });
    expect(row.expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
  });
});
