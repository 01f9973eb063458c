// Webhook acknowledgement under duplicate deliveries: 50 copies of one
// delivery sent at once (a provider retrying while the first is still being
// handled), against 50 concurrent requests to an empty route (GET /healthz,
// our stack around a handler that does nothing), in the same rounds.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_REGION } from '../local/stack.ts';
import { calendlyBooking, type Reply, type Scenario } from './scenario.ts';
import { median, percentile, round, shuffled } from './stats.ts';

export interface AckFigures {
  p50: number;
  p99: number;
  /** DynamoDB requests served during this route's bursts, per request (work the route started in the background included). */
  dynamoCallsPerRequest: number;
  /** How the copies were answered, e.g. { "200 queued": 5, "200 duplicate": 245 }. */
  answers: Record<string, number>;
}

export interface WebhookFigures {
  concurrency: number;
  rounds: number;
  /** The local DynamoDB alone: as many concurrent GetItem calls as copies, from this process; p50 of each and the whole burst. */
  dynamoBurst: { p50: number; burstMs: number };
  emptyRoute: AckFigures;
  booking: AckFigures & { ratio: number };
  payments: AckFigures & { ratio: number };
}

export async function measureWebhooks(s: Scenario, options: { concurrency: number; rounds: number }): Promise<WebhookFigures> {
  const bookingPath = new URL((await s.webhookUrls()).booking).pathname;
  let paymentEvents = 0;
  const kinds: Record<'emptyRoute' | 'booking' | 'payments', () => Promise<() => Promise<Reply>>> = {
    emptyRoute: async () => () => s.api('/healthz'),
    booking: async () => {
      const body = calendlyBooking();
      return () => s.api(bookingPath, { raw: body, headers: { 'content-type': 'application/json' } });
    },
    // A status change of the owner's subscription, alternating, so each event has work to do.
    payments: async () => {
      const { payload, signature } = await s.paymentEvent(paymentEvents++ % 2 === 0 ? 'past_due' : 'active');
      return () => s.api('/webhooks/payments', { raw: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
    },
  };
  type Kind = keyof typeof kinds;
  const replies: Record<Kind, Reply[]> = { emptyRoute: [], booking: [], payments: [] };
  const dynamoCalls: Record<Kind, number> = { emptyRoute: 0, booking: 0, payments: 0 };

  // One warm-up round, not counted: the first request of each route loads its handler.
  for (const kind of Object.keys(kinds) as Kind[]) await burst(await kinds[kind](), options.concurrency);
  for (let round = 0; round < options.rounds; round++) {
    for (const kind of shuffled(Object.keys(kinds) as Kind[])) {
      const send = await kinds[kind]();
      const before = s.stack.dynamoRequests();
      replies[kind].push(...(await burst(send, options.concurrency)));
      dynamoCalls[kind] += s.stack.dynamoRequests() - before;
    }
  }

  const figures = (list: Reply[], calls: number): AckFigures => ({
    p50: round(median(list.map((r) => r.ms))),
    p99: round(percentile(list.map((r) => r.ms), 99)),
    dynamoCallsPerRequest: round(calls / list.length, 1),
    answers: list.reduce<Record<string, number>>((acc, r) => {
      const key = `${r.status} ${r.body?.outcome ?? r.body?.error?.code ?? ''}`.trim();
      return { ...acc, [key]: (acc[key] ?? 0) + 1 };
    }, {}),
  });
  const empty = figures(replies.emptyRoute, dynamoCalls.emptyRoute);
  const dynamoBurst = await measureDynamoBurst(s, options.concurrency, options.rounds);
  const booking = figures(replies.booking, dynamoCalls.booking);
  const payments = figures(replies.payments, dynamoCalls.payments);
  return {
    concurrency: options.concurrency,
    rounds: options.rounds,
    dynamoBurst,
    emptyRoute: empty,
    booking: { ...booking, ratio: round(booking.p50 / empty.p50) },
    payments: { ...payments, ratio: round(payments.p50 / empty.p50) },
  };
}

/** What the local DynamoDB (dynalite, one process) takes for a burst of reads, the floor under every webhook copy's lookups. */
async function measureDynamoBurst(s: Scenario, n: number, rounds: number) {
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: s.stack.urls.dynamodb, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
  const get = async () => {
    const started = performance.now();
    await db.send(new GetCommand({ TableName: 'agency-backend-local-accounts', Key: { id: s.account.id } }));
    return performance.now() - started;
  };
  await Promise.all(Array.from({ length: n }, get));
  const each: number[] = [];
  const bursts: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    each.push(...(await Promise.all(Array.from({ length: n }, get))));
    bursts.push(performance.now() - started);
  }
  return { p50: round(median(each)), burstMs: round(median(bursts)) };
}

async function burst(send: () => Promise<Reply>, n: number): Promise<Reply[]> {
  const replies = await Promise.all(Array.from({ length: n }, send));
  const failed = replies.filter((r) => r.status >= 500);
  if (failed.length) throw new Error(`${failed.length} of ${n} answered ${failed[0]!.status}: ${JSON.stringify(failed[0]!.body).slice(0, 200)}`);
  return replies;
}
