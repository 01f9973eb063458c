// The membership and booking webhooks as tests drive them: an account
// onboarded through onboarding-v2, its webhook URLs read by an operator, and
// deliveries as the providers send them.
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { expect, vi } from 'vitest';
import { bookingJobName } from '../../lib/webhooks/booking-queue.ts';
import { api, errorCode, recorded, stack, type Reply } from './http.ts';
import { followRun, SERVICE_KEY, uniqueToken } from './onboarding.ts';
import { bearer, client, logIn, verifiedUser } from './users.ts';

export const BOOKING_MACHINE = 'arn:aws:states:eu-west-1:000000000000:stateMachine:agency-backend-local-booking';
export const stackSfn = () =>
  new SFNClient({ endpoint: stack().urls.stepFunctions, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
/** Asks again until `check` passes (a minute at most). */
export const eventually = <T>(check: () => Promise<T>, interval = 300, timeout = 60_000) => vi.waitFor(check, { timeout, interval });

export interface WebhookAccount {
  accountId: string;
  /** The account's owner's credentials (their bearer token): only an owner reads and changes its webhook settings. */
  auth: Record<string, string>;
  executionId: string;
  company: string;
  /** The account's folder in the ClickUp emulator. */
  folder: string;
  urls: { membership: string; booking: string };
}

/**
 * A company onboarded through onboarding-v2 (named `Hook <token>` unless given), by the portal's backend (the
 * service key) unless other credentials are given; its webhook URLs read by its owner. An account the service
 * opened has no member yet: its owner signs up with the onboarded address and accepts the invitation.
 */
export async function onboardedAccount(headers: Record<string, string> = SERVICE_KEY, email?: string, companyName?: string): Promise<WebhookAccount> {
  const t = uniqueToken();
  const company = companyName ?? `Hook ${t}`;
  const address = email ?? `owner-${t}@hook-${t}.example`;
  // A run that outlives the endpoint's wait is answered 202: its final answer is the one that counts.
  const onboarded = await followRun(await api('/api/onboarding-v2', { body: { email: address, companyName: company }, headers }));
  expect(onboarded.status).toBe(200);
  const auth = headers === SERVICE_KEY ? await ownerFromInvitation(onboarded.body.accountId, address) : headers;
  const settings = await api(`/api/accounts/${onboarded.body.accountId}/webhooks`, { headers: auth });
  expect(settings.status).toBe(200);
  expect(settings.headers.get('cache-control')).toBe('no-store');
  return {
    accountId: onboarded.body.accountId,
    auth,
    executionId: onboarded.body.executionId,
    company,
    folder: `${company} (${onboarded.body.portalSlug})`,
    urls: settings.body.urls,
  };
}

/** The person at the address signs up, verifies, logs in and accepts their invitation to own the account. */
async function ownerFromInvitation(accountId: string, email: string): Promise<Record<string, string>> {
  const c = client();
  await verifiedUser(c, undefined, email);
  const auth = bearer((await logIn(c, email)).body.session.access_token as string);
  const waiting = (await c.get('/api/auth/me', auth)).body.invitations as { invitationId: string; accountId: string }[];
  const invitation = waiting.find((i) => i.accountId === accountId);
  expect(invitation, `an invitation of ${email} to ${accountId}`).toBeDefined();
  expect((await c.post(`/api/invitations/${invitation!.invitationId}/accept`, undefined, auth)).status).toBe(200);
  return auth;
}

export const pathOf = (url: string) => new URL(url).pathname;

/**
 * How a provider's copy of an event was answered: "retry later" for a copy that
 * found another delivery at work on it (409 delivery_in_progress, with Retry-After,
 * answered at once), else the status and what the body says.
 */
export function copyAnswer(reply: Reply, said: (body: any) => string = (body) => body.outcome): string {
  if (reply.status !== 409) return `${reply.status} ${said(reply.body)}`;
  const code = errorCode(reply);
  return code === 'delivery_in_progress' && Number(reply.headers.get('retry-after')) > 0 ? 'retry later' : `409 ${code}`;
}

/** Posts a raw body to one of the account's webhook URLs. */
export const deliverWebhook = (url: string, body: string, headers: Record<string, string> = {}) =>
  api(pathOf(url), { method: 'POST', raw: body, headers: { 'content-type': 'application/json', ...headers } });

/** The tasks of the account's Onboarding list in the ClickUp emulator. */
export async function onboardingTasks(account: Pick<WebhookAccount, 'folder'>): Promise<{ id: string; name: string; description: string; due_date: string | null }[]> {
  const folder = (await recorded('tasks')).find((f: { name: string }) => f.name === account.folder);
  return folder?.lists.find((l: { name: string }) => l.name === 'Onboarding')?.tasks ?? [];
}

/**
 * The messages the Slack emulator received that contain the text, as a person reads them: without the
 * zero-width breaks that keep what users wrote from being linked (lib/text.ts, chatField).
 */
export const chatAbout = async (text: string): Promise<{ text: string }[]> =>
  (await recorded('chat')).map((m: { text: string }) => ({ ...m, text: m.text.replaceAll('\u200b', '') })).filter((m: { text: string }) => m.text.includes(text));

/** Waits for the booking execution of this event to succeed. */
export async function bookingExecution(accountId: string, provider: string, eventId: string) {
  const name = bookingJobName(`booking#${accountId}#${provider}#${eventId}`);
  return eventually(async () => {
    const res = await stackSfn().send(new DescribeExecutionCommand({ executionArn: `${BOOKING_MACHINE.replace(':stateMachine:', ':execution:')}:${name}` }));
    expect(res.status).toBe('SUCCEEDED');
    return res;
  });
}

/** A Calendly delivery; `t` makes the invitee (and so the booking) unique. */
export function calendlyBody(event: 'invitee.created' | 'invitee.canceled', t: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    event,
    created_at: new Date().toISOString(),
    payload: {
      uri: `https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`,
      email: `guest-${t}@example.org`,
      name: `Guest ${t}`,
      timezone: 'Europe/Berlin',
      rescheduled: false,
      scheduled_event: { name: 'Kick-off call', start_time: '2026-04-07T08:00:00.000000Z', end_time: '2026-04-07T08:30:00.000000Z', location: { type: 'zoom', join_url: 'https://zoom.example/j/1' } },
      ...extra,
    },
  });
}

/** The Calendly event id the service keys a booking delivery by. */
export const calendlyEventId = (event: 'invitee.created' | 'invitee.canceled', t: string) =>
  `${event}|https://api.calendly.com/scheduled_events/EV-${t}/invitees/INV-${t}`;

/** A Memberstack member, as member.* events carry it. */
export const membershipMember = (id: string, email: string, extra: Record<string, unknown> = {}) => ({
  id,
  auth: { email },
  customFields: { 'first-name': 'Mo', 'last-name': 'Ray' },
  ...extra,
});
