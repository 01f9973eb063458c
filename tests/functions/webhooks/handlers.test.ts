// The webhook Lambdas in-process, wired from configuration exactly as on AWS,
// against dynalite, the ClickUp and Slack emulators, and the local Step
// Functions engine running the booking state machine with the real step
// handlers. Every log line is captured: the path secret must never be in one.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamodbAccounts } from '../../../lib/accounts/dynamodb-accounts.ts';
import { dynamodbMemberships } from '../../../lib/accounts/dynamodb-memberships.ts';
import { supabaseIdentity } from '../../../lib/identity/supabase-identity.ts';
import { clickupTaskTool } from '../../../lib/integrations/clickup-task-tool.ts';
import { dynamodbLedger } from '../../../lib/provisioning/dynamodb-ledger.ts';
import { dynamodbWebhookIntegrations } from '../../../lib/webhooks/dynamodb-webhook-integrations.ts';
import { clickupVendor } from '../../../local/emulators/clickup.ts';
import { slackVendor } from '../../../local/emulators/slack.ts';
import { supabaseVendor } from '../../../local/emulators/supabase.ts';
import { StepFunctionsEngine, type Invoke, type MachineDefinition } from '../../../local/stepfunctions/engine.ts';
import { serveStepFunctions, type LocalStepFunctionsServer } from '../../../local/stepfunctions/server.ts';
import { stateMachines } from '../../../statemachines/cloudformation.ts';
import { useDynamo } from '../../support/dynamo.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';
import { httpEvent, lambdaContext } from '../../support/events.ts';

const d = useDynamo();
const emu = useEmulators(clickupVendor, slackVendor, supabaseVendor);

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;
type Step = (input: unknown) => Promise<unknown>;
const handlers: Record<string, Handler> = {};
const steps: Record<string, Step> = {};
const logs: string[] = [];
const saved = { ...process.env };

const BOOKING_ARN = 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-booking';
const ONBOARDING_ARN = 'arn:aws:states:eu-west-1:000000000000:stateMachine:test-onboarding';
let engine: StepFunctionsEngine;
let sfnServer: LocalStepFunctionsServer;

const machine = (arn: string, definition: Record<string, unknown>): MachineDefinition => ({
  arn,
  name: arn.split(':').at(-1)!,
  roleArn: 'arn:aws:iam::000000000000:role/r',
  creationDate: Date.now(),
  functionArns: {},
  definition,
});

beforeAll(async () => {
  const invoke: Invoke = async (fn, payload) => {
    try {
      return { ok: true, payload: (await steps[fn]!(payload)) as never };
    } catch (error) {
      return { ok: false, errorType: (error as Error).name, errorMessage: (error as Error).message };
    }
  };
  const booking = JSON.parse(JSON.stringify(stateMachines.booking).replace(/\$\{(\w+)Arn\}/g, '$1'));
  engine = new StepFunctionsEngine(
    [machine(BOOKING_ARN, booking), machine(ONBOARDING_ARN, { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } })],
    invoke,
  );
  sfnServer = await serveStepFunctions(engine, 0);
  Object.assign(process.env, emu.env, {
    AWS_ENDPOINT_URL_DYNAMODB: d.endpoint,
    AWS_ENDPOINT_URL_SFN: sfnServer.endpoint,
    BOOKING_STATE_MACHINE_ARN: BOOKING_ARN,
    ONBOARDING_STATE_MACHINE_ARN: ONBOARDING_ARN,
    INTERNAL_API_KEY: 'test-internal-key',
    LOG_LEVEL: 'debug',
    VENDOR_MAX_ATTEMPTS: '2',
    VENDOR_TIMEOUT_MS: '2000',
  });
  vi.resetModules();
  for (const name of ['membership-webhook', 'booking-webhook', 'webhook-settings', 'rotate-webhook-secret']) {
    handlers[name] = (await import(`../../../functions/webhooks/${name}.ts`)).handler as Handler;
  }
  steps.RecordBookingTask = (await import('../../../functions/webhooks/steps/record-booking-task.ts')).handler as Step;
  steps.PostBookingAlert = (await import('../../../functions/webhooks/steps/post-booking-alert.ts')).handler as Step;
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      logs.push(String(chunk));
      return true;
    }) as typeof stream.write);
  }
});

afterAll(async () => {
  vi.restoreAllMocks();
  process.env = saved;
  engine?.shutdown();
  await sfnServer?.stop();
});

async function post(name: 'membership-webhook' | 'booking-webhook', secret: string, body: string, headers: Record<string, string> = {}, base64 = false) {
  const kind = name === 'membership-webhook' ? 'membership' : 'booking';
  const result = await handlers[name]!(
    {
      ...httpEvent({ method: 'POST', path: `/webhooks/${kind}/${secret}`, routeKey: `POST /webhooks/${kind}/{secret}`, headers, body: base64 ? Buffer.from(body).toString('base64') : body, pathParameters: { secret } }),
      isBase64Encoded: base64,
    },
    lambdaContext(),
  );
  return { status: result.statusCode!, text: String(result.body ?? ''), body: result.body ? JSON.parse(String(result.body)) : undefined };
}

/** An account as onboarding leaves it: details, webhook secret, and its onboarding list in ClickUp. */
async function newAccount(company: string) {
  const accountId = crypto.randomUUID();
  await dynamodbAccounts(d).saveAccountDetails(accountId, { company_name: company });
  const { secret } = await dynamodbWebhookIntegrations(d).ensure(accountId);
  const tool = clickupTaskTool({ token: emu.env.CLICKUP_API_TOKEN!, apiBase: emu.env.CLICKUP_API_BASE!, spaceId: emu.env.CLICKUP_SPACE_ID! }, quickPolicy);
  const list = await tool.ensureList((await tool.ensureFolder(`${company} ${accountId}`)).id, 'Onboarding');
  await dynamodbLedger(d).put(accountId, 'clickup#list#onboarding', { id: list.id });
  return { accountId, secret };
}

describe('the webhook Lambdas', () => {
  it('take a booking, answer at once, and the workflow adds one task and one alert', async () => {
    const { accountId, secret } = await newAccount('Handler Co');

    const body = readFileSync('tests/fixtures/webhooks/calcom-booking-created.json', 'utf8');
    const reply = await post('booking-webhook', secret, body);
    expect(reply).toMatchObject({ status: 200, body: { received: true, outcome: 'queued' } });
    // A copy while its execution runs is that execution (Step Functions answers a same-named start as the first)...
    expect((await post('booking-webhook', secret, body)).body).toEqual({ received: true, outcome: 'queued' });
    await engine.idle();
    // ...and once it has finished, a duplicate.
    expect((await post('booking-webhook', secret, body)).body).toEqual({ received: true, outcome: 'duplicate' });

    const folder = (await emu.get('tasks')).find((f: { name: string }) => f.name === `Handler Co ${accountId}`);
    expect(folder.lists[0].tasks).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^Call with Bea Cruz: Kick-off call between Sam Agent and Bea Cruz \[[0-9a-f]{6}\]$/), due_date: String(Date.parse('2026-03-10T14:00:00Z')) }),
    ]);
    expect((await emu.get('chat')).filter((m: { text: string }) => m.text.startsWith('New booking for Handler Co: Bea Cruz'))).toHaveLength(1);
  });

  it('verify a signature over the raw bytes, also when API Gateway hands the body over base64-encoded', async () => {
    const { accountId, secret } = await newAccount('Signed Co');
    await dynamodbWebhookIntegrations(d).setSigningKeys(accountId, { calcom: 'calcom-handler-key' });
    const body = JSON.stringify({ triggerEvent: 'BOOKING_CREATED', createdAt: '2026-03-02T09:15:00Z', payload: { uid: `uid-${accountId}`, title: 'Intro' } });
    const signature = createHmac('sha256', 'calcom-handler-key').update(body).digest('hex');
    expect((await post('booking-webhook', secret, body, { 'x-cal-signature-256': signature }, true)).body).toEqual({ received: true, outcome: 'queued' });
    const bad = await post('booking-webhook', secret, body, { 'x-cal-signature-256': signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'invalid_signature', message: 'The X-Cal-Signature-256 does not match the body' }, requestId: expect.any(String) });
    await engine.idle();
  });

  it('answer an unknown secret with the JSON 404, and never log a secret from the path', async () => {
    const { accountId, secret } = await newAccount('Quiet Co');
    const member = JSON.stringify({ event: 'member.created', timestamp: Date.now(), payload: { id: 'mem_q', auth: { email: `q-${accountId}@quiet.example` } } });
    expect((await post('membership-webhook', secret, member)).body).toEqual({ received: true, outcome: 'applied' });
    expect(await dynamodbAccounts(d).getMember(accountId, `q-${accountId}@quiet.example`)).toMatchObject({ account_id: accountId, role: 'member' });
    const unknown = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [unknown, secret.slice(0, 30)]) {
      const reply = await post('membership-webhook', path, member);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'not_found', message: 'There is no webhook at this address' }, requestId: expect.any(String) });
    }
    // Its owner reads the settings (the internal service key may not: 403).
    const identity = supabaseIdentity({ url: emu.env.SUPABASE_URL!, anonKey: emu.env.SUPABASE_ANON_KEY!, serviceRoleKey: emu.env.SUPABASE_SERVICE_ROLE_KEY! }, quickPolicy);
    const email = `owner-${accountId}@quiet.example`;
    const registered = await identity.register({ email, password: 'Secret123', metadata: {} });
    if (registered.outcome !== 'registered') throw new Error(registered.outcome);
    await identity.confirmEmail(registered.user.id);
    const signedIn = await identity.signIn(email, 'Secret123');
    if (signedIn.outcome !== 'signed-in') throw new Error(signedIn.outcome);
    await dynamodbMemberships(d).join({ accountId, userId: registered.user.id, email, role: 'owner', via: 'created' });
    const read = (headers: Record<string, string>) =>
      handlers['webhook-settings']!(httpEvent({ method: 'GET', path: '/x', headers, pathParameters: { accountId } }), lambdaContext());
    expect((await read({ 'x-api-key': 'test-internal-key' })).statusCode).toBe(403);
    const settings = await read({ authorization: `Bearer ${signedIn.session.accessToken}` });
    expect(settings.statusCode).toBe(200);
    expect(settings.headers).toMatchObject({ 'cache-control': 'no-store' });
    expect(String(settings.body)).toContain(secret);

    const all = logs.join('');
    expect(all).toContain('"route":"POST /webhooks/membership/{secret}"');
    for (const s of [secret, unknown, secret.slice(0, 30)]) expect(all).not.toContain(s);
  });
});
