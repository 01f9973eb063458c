// Each vendor × {fails once, fails always, throttles with its own retry header,
// hangs}, through a real onboarding on a stack of its own. For each: the
// expected outcome, retries as designed (counted at the emulator), nothing
// duplicated, failures recorded, and a redrive that finishes what failed.
// Faults here hit a vendor as a whole, so the scenarios run one at a time.
import { afterEach, describe, expect, it } from 'vitest';
import { stateMachines } from '../../statemachines/cloudformation.ts';
import { api, stack } from '../support/http.ts';
import {
  clearFaults,
  expectProvisionedOnce,
  onboard,
  redriveWhenHeld,
  setFault,
  SERVICE_KEY,
  uniqueToken,
  vendorRequests,
} from '../support/onboarding.ts';
import { row } from '../support/stack-db.ts';

const VENDORS = ['clickup', 'dropbox', 'resend', 'slack', 'close'] as const;

// Attempts as designed: the step's own attempts, times the state machine's invocations of the step.
// Slack's and ClickUp's first calls are creates with no idempotency key (a post, the client's folder), never
// repeated in-process when their outcome is unknown (a 5xx, a timeout): only the state machine's retry of the step sends them again.
const asl = JSON.parse(JSON.stringify(stateMachines.onboarding));
const stepRetry = asl.States.Provision.Branches[0].States.ProvisionTaskTool.Retry.find((r: { ErrorEquals: string[] }) => r.ErrorEquals.includes('VendorUnavailable'));
const stepInvocations = 1 + stepRetry.MaxAttempts;
const attemptsPerCall = (vendor: string) => (vendor === 'slack' || vendor === 'clickup' ? 1 : Number(stack().env.VENDOR_MAX_ATTEMPTS)) * stepInvocations;

const followUp = (accountId: string, integration: string) => row('follow_ups', { account_id: accountId, integration });

function company(vendor: string, scenario: string) {
  const t = uniqueToken();
  const name = `${vendor} ${scenario} ${t}`;
  return { name, slug: `${vendor}-${scenario}-${t}`, email: `${vendor}-${scenario}-${t}@example.com` };
}

afterEach(clearFaults);

describe.each(VENDORS)('%s', (vendor) => {
  it('fails once: retried, ends success, nothing duplicated', async () => {
    const c = company(vendor, 'once');
    await setFault({ vendor, mode: 'fail', count: 1 });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations[vendor]).toBe('success');
    expect((await vendorRequests(vendor, since)).filter((r) => r.fault === 'fail')).toHaveLength(1);
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });

  it('fails always: every attempt made, failure recorded with context, others succeed; a redrive finishes it', async () => {
    const c = company(vendor, 'always');
    await setFault({ vendor, mode: 'fail', count: 100_000 });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(500);
    expect(reply.body.integrations[vendor]).toBe('failed');
    for (const other of VENDORS) if (other !== vendor) expect(reply.body.integrations[other], other).toBe('success');
    const [error] = reply.body.errors;
    expect(error).toMatchObject({ integration: vendor, context: { vendor, transient: true } });
    expect(error.context.status).toBeGreaterThanOrEqual(500);
    // Retries as designed: the first call of the step was tried in-step, in every invocation.
    expect((await vendorRequests(vendor, since)).filter((r) => r.fault === 'fail').length).toBeGreaterThanOrEqual(attemptsPerCall(vendor));
    expect(await followUp(reply.body.accountId, vendor), JSON.stringify(reply.body.errors)).toMatchObject({ state: 'open', message: error.message });

    await clearFaults();
    expect(await redriveWhenHeld(reply.body.executionId)).toBe('SUCCEEDED');
    const after = await api(`/api/onboarding/runs/${reply.body.executionId}`, { headers: SERVICE_KEY });
    expect(after.status).toBe(200);
    expect(after.body.integrations[vendor]).toBe('success');
    expect(await followUp(reply.body.accountId, vendor)).toMatchObject({ state: 'resolved' });
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });

  it('throttles with its own retry header: waits as told, then succeeds', async () => {
    const c = company(vendor, 'throttled');
    await setFault({ vendor, mode: 'throttle', count: 1, retryAfterSeconds: 1 });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations[vendor]).toBe('success');
    const calls = await vendorRequests(vendor, since);
    const throttled = calls.findIndex((r) => r.fault === 'throttle');
    expect(throttled).toBeGreaterThanOrEqual(0);
    // The retry of that very call (same path and body) came no sooner than the vendor asked (here: 1 s).
    // Another invocation may send the same request sooner (the e-mails are sent by two steps, idempotently),
    // so the retry is the last identical request: without the hint it would have come within 250 ms.
    const identical = calls.slice(throttled + 1).filter((r) => r.text === calls[throttled]!.text);
    expect(Math.max(...identical.map((r) => r.at)) - calls[throttled]!.at).toBeGreaterThanOrEqual(1000);
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });

  it('hangs: each call times out, the failure is recorded, a redrive finishes it', async () => {
    const c = company(vendor, 'hang');
    await setFault({ vendor, mode: 'hang', count: 100_000 });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(500);
    expect(reply.body.integrations[vendor]).toBe('failed');
    expect(reply.body.errors[0].message).toMatch(/timed out|could not be reached/);
    expect((await vendorRequests(vendor, since)).filter((r) => r.fault === 'hang').length).toBeGreaterThanOrEqual(attemptsPerCall(vendor));
    expect(await followUp(reply.body.accountId, vendor)).toMatchObject({ state: 'open' });

    await clearFaults();
    expect(await redriveWhenHeld(reply.body.executionId)).toBe('SUCCEEDED');
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });
});

// The vendor does the create but its answer is lost (the call times out). The client must not send the
// create again in-process; the state machine re-runs the step, which finds what was created and adopts it.
describe('a create whose answer is lost', () => {
  it('close: the lead is created once, found by its e-mail on the retry, and the run succeeds', async () => {
    const c = company('close', 'lost');
    // Only the create carries the company's name (the search carries the e-mail).
    await setFault({ vendor: 'close', mode: 'lose-answer', count: 1, match: c.name });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.close).toBe('success');
    const creates = (await vendorRequests('close', since)).filter((r) => r.method === 'POST' && r.path.endsWith('/lead/'));
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ fault: 'lose-answer', status: 200 });
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });

  it('clickup: the folder and a task are created once, the folder adopted when its name is taken and the task found by name on the retries, and the run succeeds', async () => {
    const c = company('clickup', 'lost');
    await setFault({ vendor: 'clickup', mode: 'lose-answer', count: 1, match: c.name });
    await setFault({ vendor: 'clickup', mode: 'lose-answer', count: 1, match: 'Kick-off call' });
    const since = Date.now();
    const reply = await onboard({ email: c.email, companyName: c.name });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.clickup).toBe('success');
    const calls = await vendorRequests('clickup', since);
    expect(calls.filter((r) => r.fault === 'lose-answer')).toHaveLength(2);
    // The step runs again and creates the folder again: ClickUp refuses the name (taken), and the folder made by the lost call is adopted.
    const folderCreates = calls.filter((r) => r.method === 'POST' && r.path.endsWith('/folder'));
    expect(folderCreates.map((r) => r.status)).toEqual([200, 400]);
    expect(calls.filter((r) => r.method === 'POST' && r.text.includes('"Kick-off call"'))).toHaveLength(1);
    await expectProvisionedOnce(c.name, c.slug, c.email);
  });
});
