// Webhook acknowledgement, in two scenarios, each against its floor in the
// same rounds:
// - duplicates: 50 copies of one delivery sent at once (a provider retrying
//   while the first is still being handled);
// - distinct: 200 different deliveries, 20 at a time (a busy day).
// The floor is the empty route (GET /healthz: our stack around a handler that
// does nothing) under the same concurrency, plus k calls of the local
// DynamoDB under the same concurrency, k being the fewest DynamoDB calls the
// route must make, as issue 16 set them (1 for payments: the claim of the
// event; 2 for booking: finding the account from the secret, then the claim).
// Both parts of the floor are measured in the same rounds as the routes, in
// a shuffled order: the DynamoDB call as many GetItems as there are
// deliveries, through the same pool, so a call meets the load a delivery
// meets. (It was once timed after the rounds, in batches that each waited for
// their slowest call: a batch served one call at a time leaves its median
// call waiting for half the batch, where in a pool that keeps `concurrency`
// in flight every call waits behind all the others, as every delivery does.
// At 20 concurrent that floor's call was 5-7 ms, against 16-19 ms in the pool.)
// The payment webhook now makes none: the one write that decides is the
// Step Functions execution, named after the event, that queues it.
//
// Work a delivery hands to a state machine (the booking's task and chat
// alert) runs on AWS in Lambdas of its own, beside the webhook's, not on its
// CPU. Here everything shares two cores, so while deliveries are timed the
// local Step Functions holds its executions' tasks; after each run they are
// let go and waited for, and their DynamoDB calls are counted apart.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { Sha256 } from '../lib/sha256.ts';
import { LOCAL_REGION } from '../local/stack.ts';
import { calendlyBooking, type Reply, type Scenario } from './scenario.ts';
import { median, percentile, round, shuffled } from './stats.ts';

export const MIN_DYNAMO_CALLS = { payments: 1, booking: 2 };
export const WEBHOOK_BUDGET = 2;

export interface AckFigures {
  p50: number;
  p99: number;
  /** DynamoDB requests served while this route's deliveries were answered, per request. */
  dynamoCallsPerRequest: number;
  /** DynamoDB requests of the work the deliveries handed to a state machine, made after they were answered, per request. */
  backgroundDynamoCallsPerRequest: number;
  /** How the deliveries were answered, e.g. { "200 queued": 5, "200 duplicate": 245 }. */
  answers: Record<string, number>;
}

export interface WebhookScenario {
  name: 'duplicates' | 'distinct';
  requests: number;
  concurrency: number;
  rounds: number;
  /** The local DynamoDB alone, under the same concurrency: p50 of one GetItem. */
  dynamoCallP50: number;
  emptyRoute: AckFigures;
  booking: AckFigures & { floorMs: number; ratio: number };
  payments: AckFigures & { floorMs: number; ratio: number };
}

type Kind = 'emptyRoute' | 'booking' | 'payments';

export async function measureWebhooks(
  s: Scenario,
  options: { name: WebhookScenario['name']; requests: number; concurrency: number; rounds: number },
): Promise<WebhookScenario> {
  const bookingPath = new URL((await s.webhookUrls()).booking).pathname;
  let paymentEvents = 0;
  const duplicates = options.name === 'duplicates';
  // What one run sends: the same delivery again and again, or a different one each time (prepared before the clock starts).
  const deliveries: Record<Kind, () => Promise<(() => Promise<Reply>)[]>> = {
    emptyRoute: async () => Array.from({ length: options.requests }, () => () => s.api('/healthz')),
    booking: async () => {
      const one = () => {
        const body = calendlyBooking();
        return () => s.api(bookingPath, { raw: body, headers: { 'content-type': 'application/json' } });
      };
      const first = one();
      return Array.from({ length: options.requests }, () => (duplicates ? first : one()));
    },
    // A status change of the owner's subscription, alternating, so each event has work to do.
    payments: async () => {
      const one = async () => {
        const { payload, signature } = await s.paymentEvent(paymentEvents++ % 2 === 0 ? 'past_due' : 'active');
        return () => s.api('/webhooks/payments', { raw: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
      };
      if (duplicates) {
        const first = await one();
        return Array.from({ length: options.requests }, () => first);
      }
      const all: (() => Promise<Reply>)[] = [];
      for (let i = 0; i < options.requests; i++) all.push(await one());
      return all;
    },
  };
  const replies: Record<Kind, Reply[]> = { emptyRoute: [], booking: [], payments: [] };
  const dynamoCalls: Record<Kind, number> = { emptyRoute: 0, booking: 0, payments: 0 };
  const backgroundCalls: Record<Kind, number> = { emptyRoute: 0, booking: 0, payments: 0 };
  const { engine } = s.stack;
  /** Runs `work` with the executions' tasks held; then lets them run to the end. */
  const whileHeld = async (work: () => Promise<void>) => {
    engine.hold();
    try {
      await work();
    } finally {
      engine.release();
      await engine.idle();
    }
  };
  /** Answers every delivery with the tasks held, counting the DynamoDB calls of the answers and of the work apart. */
  const timed = async (kind: Kind, sends: (() => Promise<Reply>)[]) => {
    const before = s.stack.dynamoRequests();
    let answered = before;
    await whileHeld(async () => {
      replies[kind].push(...(await pool(sends, options.concurrency)));
      answered = s.stack.dynamoRequests();
      dynamoCalls[kind] += answered - before;
    });
    backgroundCalls[kind] += s.stack.dynamoRequests() - answered;
  };

  // The floor's DynamoDB call: as many GetItems as deliveries, through the same pool.
  const getItem = dynamoGetItem(s);
  const dynamoCallMs: number[] = [];
  const floorCalls = () => pool(Array.from({ length: options.requests }, () => getItem), options.concurrency);

  // One warm-up run, not counted: the first request of each route loads its handler.
  for (const kind of Object.keys(deliveries) as Kind[]) {
    await whileHeld(async () => void (await pool((await deliveries[kind]()).slice(0, options.concurrency), options.concurrency)));
  }
  await pool(Array.from({ length: options.concurrency }, () => getItem), options.concurrency);
  for (let r = 0; r < options.rounds; r++) {
    for (const step of shuffled([...(Object.keys(deliveries) as Kind[]), 'dynamoCall' as const])) {
      if (step === 'dynamoCall') dynamoCallMs.push(...(await floorCalls()));
      else await timed(step, await deliveries[step]());
    }
  }

  const figures = (kind: Kind): AckFigures => ({
    p50: round(median(replies[kind].map((r) => r.ms))),
    p99: round(percentile(replies[kind].map((r) => r.ms), 99)),
    dynamoCallsPerRequest: round(dynamoCalls[kind] / replies[kind].length, 1),
    backgroundDynamoCallsPerRequest: round(backgroundCalls[kind] / replies[kind].length, 1),
    answers: replies[kind].reduce<Record<string, number>>((acc, r) => {
      const key = `${r.status} ${r.body?.outcome ?? r.body?.error?.code ?? ''}`.trim();
      return { ...acc, [key]: (acc[key] ?? 0) + 1 };
    }, {}),
  });
  const empty = figures('emptyRoute');
  const dynamoCallP50 = round(median(dynamoCallMs));
  const against = (kind: 'booking' | 'payments') => {
    const f = figures(kind);
    const floorMs = round(empty.p50 + MIN_DYNAMO_CALLS[kind] * dynamoCallP50);
    return { ...f, floorMs, ratio: round(f.p50 / floorMs) };
  };
  return { ...options, dynamoCallP50, emptyRoute: empty, booking: against('booking'), payments: against('payments') };
}

/** One GetItem of the local DynamoDB (dynalite, one process), timed in milliseconds; the client signs as the functions' do. */
function dynamoGetItem(s: Scenario): () => Promise<number> {
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: s.stack.urls.dynamodb, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, sha256: Sha256 }),
  );
  return async () => {
    const started = performance.now();
    await db.send(new GetCommand({ TableName: 'agency-backend-local-accounts', Key: { id: s.account.id } }));
    return performance.now() - started;
  };
}

/**
 * Sends every request, `concurrency` at a time. A 5xx does not stop the run:
 * it is counted among the answers (a provider delivers such an event again
 * later), and the report shows it.
 */
async function pool<T>(sends: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const replies: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, sends.length) }, async () => {
      while (next < sends.length) replies.push(await sends[next++]!());
    }),
  );
  return replies;
}
