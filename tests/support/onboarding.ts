// Onboarding as tests drive it: submit, follow a 202 to the end, redrive.
import { DescribeExecutionCommand, RedriveExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { expect } from 'vitest';
import { api, recorded as recordedHere, stack, type Reply } from './http.ts';

export const SERVICE_KEY = { 'x-api-key': 'local-internal-api-key' };
export const uniqueToken = () => Math.random().toString(36).slice(2, 8);

export async function onboard(body: Record<string, unknown>, headers: Record<string, string> = SERVICE_KEY): Promise<Reply> {
  return followRun(await api('/api/onboarding-v2', { body, headers }));
}

/** Follows a 202 to the run's final answer, polling once a second at most `maxPolls` times. */
export async function followRun(reply: Reply, maxPolls = 180): Promise<Reply> {
  let current = reply;
  for (let i = 0; current.status === 202 && i < maxPolls; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    current = await api(new URL(current.body.statusUrl).pathname, { headers: SERVICE_KEY });
  }
  return current;
}

const sfn = () =>
  new SFNClient({ endpoint: stack().urls.stepFunctions, region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

/** A run's execution on its workflow's machine (onboarding-v2's unless named). */
export function executionArn(executionId: string, machine = 'onboarding') {
  return `arn:aws:states:eu-west-1:000000000000:execution:agency-backend-local-${machine}:${executionId}`;
}

export async function executionStatus(executionId: string, machine = 'onboarding') {
  return (await sfn().send(new DescribeExecutionCommand({ executionArn: executionArn(executionId, machine) }))).status;
}

/** Waits for the execution to stop, then redrives it and waits for it to stop again. */
export async function redriveWhenHeld(executionId: string, machine = 'onboarding') {
  const waitUntilStopped = async () => {
    for (let i = 0; i < 240; i++) {
      const status = await executionStatus(executionId, machine);
      if (status !== 'RUNNING') return status;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${executionId} kept running`);
  };
  expect(await waitUntilStopped()).toBe('FAILED');
  await sfn().send(new RedriveExecutionCommand({ executionArn: executionArn(executionId, machine) }));
  return waitUntilStopped();
}

/**
 * Everything an onboarding creates, exactly once: no vendor holds a duplicate.
 * `atLeastOnce` names vendors allowed a repeat (Slack has no idempotency key);
 * `records` reads another stack's recordings than the project's own.
 */
export async function expectProvisionedOnce(
  company: string,
  slug: string,
  email: string,
  options: { atLeastOnce?: string[]; records?: (kind: string) => Promise<any> } = {},
) {
  const recorded = options.records ?? recordedHere;
  const count = (vendor: string, n: number, expected = 1) =>
    options.atLeastOnce?.includes(vendor) ? expect(n, vendor).toBeGreaterThanOrEqual(expected) : expect(n, vendor).toBe(expected);
  const folders = (await recorded('tasks')).filter((f: { name: string }) => f.name === `${company} (${slug})`);
  count('clickup', folders.length);
  expect(folders[0].lists.map((l: { tasks: unknown[] }) => l.tasks.length).sort()).toEqual([3, 4, 4]);
  const storage = await recorded('storage');
  count('dropbox', storage.filter((e: { path: string; type: string }) => e.path.startsWith(`/Clients/${slug}/`) && e.type === 'folder').length, 10);
  const emails = await recorded('emails');
  for (const subject of [`Welcome aboard, ${company}`, `Your shared workspace for ${company} is ready`]) {
    count('resend', emails.filter((e: { to: string[]; subject: string }) => e.to.includes(email) && e.subject === subject).length);
  }
  count('resend', emails.filter((e: { subject: string }) => e.subject === `New client: ${company}`).length);
  count('slack', (await recorded('chat')).filter((m: { text: string }) => m.text.includes(`New client onboarded: ${company}\n`)).length);
  count('close', (await recorded('crm')).filter((l: { name: string }) => l.name === company).length);
}

export async function vendorRequests(vendor: string, since: number) {
  const res = await fetch(`${stack().urls.emulators}/_local/requests?vendor=${vendor}`);
  return ((await res.json()) as { at: number; method: string; fault?: string; status?: number; path: string; text: string }[]).filter((r) => r.at >= since);
}

/** A generic mode (fail, throttle, hang, lose-answer) or one of the vendor's own (e.g. Dropbox's write-contention). */
export async function setFault(fault: { vendor: string; mode: string; count: number | 'always'; match?: string; retryAfterSeconds?: number }) {
  const res = await fetch(`${stack().urls.emulators}/_local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(res.status).toBe(201);
}

export async function clearFaults() {
  await fetch(`${stack().urls.emulators}/_local/faults`, { method: 'DELETE' });
}
