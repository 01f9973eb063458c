// Memberstack's webhook bodies (vendor-contracts §8), read into one shape.
// Its documentation is inconsistent, so both spellings are accepted: the body
// under `payload` or `data`, and `member.planConnection.*` for `member.plan.*`.
// A body we cannot read is refused (400); a well-formed event of a type we do
// not handle is acknowledged and ignored.
import { createHash } from 'node:crypto';
import { normaliseEmail } from '../accounts/accounts.ts';
import { InvalidInput, type ErrorDetail } from '../errors.ts';
import { isStorableKey } from '../store/map-keys.ts';
import { isStorableNumber } from '../store/numbers.ts';

export interface PlanConnection {
  id: string;
  planId?: string;
  /** ACTIVE, TRIALING, PAST_DUE, CANCELED, ... as the membership service says. */
  status?: string;
  /** FREE, SUBSCRIPTION or ONETIME. */
  type?: string;
  active: boolean;
}

interface Common {
  memberId: string;
  /** When the membership service fired it (epoch ms): orders events that arrive out of order. */
  at: number;
}

export type MembershipEvent =
  | (Common & { type: 'member.created' | 'member.updated'; email: string; name?: string; customFields: CustomFields; plans?: PlanConnection[] })
  | (Common & { type: 'member.deleted'; email?: string })
  | (Common & { type: 'member.plan.created' | 'member.plan.updated' | 'member.plan.canceled'; email?: string; plan: PlanConnection });

export type CustomFields = Record<string, string | number | boolean>;

export type ParsedMembership = { handled: true; event: MembershipEvent } | { handled: false; type: string };

/** The event types acted on, under both spellings. A Map: a sender's `constructor` or `__proto__` is no type (an object's would be). */
const ALIASES: ReadonlyMap<string, MembershipEvent['type']> = new Map([
  ['member.created', 'member.created'],
  ['member.updated', 'member.updated'],
  ['member.deleted', 'member.deleted'],
  ['member.plan.created', 'member.plan.created'],
  ['member.plan.updated', 'member.plan.updated'],
  ['member.plan.canceled', 'member.plan.canceled'],
  ['member.planConnection.created', 'member.plan.created'],
  ['member.planConnection.updated', 'member.plan.updated'],
  ['member.planConnection.canceled', 'member.plan.canceled'],
]);

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,}$/;
const MAX_CUSTOM_FIELDS = 50;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max = 500) => (typeof v === 'string' && v.trim() && v.length <= max ? v.trim() : undefined);

const malformed = (details: ErrorDetail[]) => new InvalidInput('The membership event cannot be read', details, 'invalid_payload');

/** Reads a delivery body; throws InvalidInput (400) for anything that is not a readable event. */
export function parseMembershipEvent(rawBody: string, receivedAt: Date): ParsedMembership {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new InvalidInput('The body is not valid JSON', undefined, 'malformed_json');
  }
  return readMembershipEvent(body, receivedAt);
}

/** Reads a parsed delivery body (see parseMembershipEvent). */
export function readMembershipEvent(body: unknown, receivedAt: Date): ParsedMembership {
  if (!isObject(body) || typeof body.event !== 'string' || !body.event) throw malformed([{ path: '/event', message: 'is required' }]);
  const type = ALIASES.get(body.event);
  if (!type) return { handled: false, type: body.event.slice(0, 100) };

  const data = isObject(body.payload) ? body.payload : isObject(body.data) ? body.data : undefined;
  if (!data) throw malformed([{ path: '/payload', message: 'is required (an object, also accepted as /data)' }]);
  const problems: ErrorDetail[] = [];
  const memberId = str(data.id, 200);
  if (!memberId) problems.push({ path: '/payload/id', message: 'is required' });
  const rawEmail = str(isObject(data.auth) ? data.auth.email : undefined, 254);
  const email = rawEmail && EMAIL.test(rawEmail) ? normaliseEmail(rawEmail) : undefined;
  if (rawEmail && !email) problems.push({ path: '/payload/auth/email', message: 'is not an e-mail address' });
  // Epoch milliseconds; a delivery without one is placed at its arrival.
  const at = typeof body.timestamp === 'number' && Number.isFinite(body.timestamp) && body.timestamp > 0 ? Math.floor(body.timestamp) : receivedAt.getTime();

  if (type === 'member.created' || type === 'member.updated') {
    if (!email && !rawEmail) problems.push({ path: '/payload/auth/email', message: 'is required' });
    const plans = Array.isArray(data.planConnections) ? data.planConnections.map((p, i) => planConnection(p, `/payload/planConnections/${i}`, problems)) : undefined;
    if (problems.length) throw malformed(problems);
    const customFields = fieldsOf(data.customFields);
    return {
      handled: true,
      event: { type, memberId: memberId!, at, email: email!, customFields, name: nameOf(customFields), ...(plans ? { plans: plans as PlanConnection[] } : {}) },
    };
  }
  if (type === 'member.deleted') {
    if (problems.length) throw malformed(problems);
    return { handled: true, event: { type, memberId: memberId!, at, ...(email ? { email } : {}) } };
  }
  const plan = planConnection(data.planConnection, '/payload/planConnection', problems);
  if (problems.length) throw malformed(problems);
  return { handled: true, event: { type, memberId: memberId!, at, plan: plan!, ...(email ? { email } : {}) } };
}

function planConnection(value: unknown, path: string, problems: ErrorDetail[]): PlanConnection | undefined {
  if (!isObject(value) || !str(value.id, 200)) {
    problems.push({ path: `${path}/id`, message: 'is required' });
    return undefined;
  }
  // The id keys the member's plans (a map the store holds): `constructor` and the like are no id.
  if (!isStorableKey(str(value.id, 200)!)) {
    problems.push({ path: `${path}/id`, message: 'is not a plan connection id' });
    return undefined;
  }
  const status = str(value.status, 40)?.toUpperCase();
  return {
    id: str(value.id, 200)!,
    ...(str(value.planId, 200) ? { planId: str(value.planId, 200) } : {}),
    ...(status ? { status } : {}),
    ...(str(value.type, 40) ? { type: str(value.type, 40)!.toUpperCase() } : {}),
    active: typeof value.active === 'boolean' ? value.active : status === 'ACTIVE' || status === 'TRIALING',
  };
}

/** Scalar custom fields only, bounded: they are copied onto the member record. */
function fieldsOf(value: unknown): CustomFields {
  if (!isObject(value)) return {};
  const fields: CustomFields = {};
  for (const [key, v] of Object.entries(value).slice(0, MAX_CUSTOM_FIELDS)) {
    // A key the store cannot hold (too long, or `constructor` and the like) is left out, as other values are.
    if (!isStorableKey(key)) continue;
    if (typeof v === 'string') fields[key] = v.slice(0, 500);
    // A number the store could not hold (beyond ±2^53, or below 1e-130) is left out, as other values are.
    else if ((typeof v === 'number' && isStorableNumber(v)) || typeof v === 'boolean') fields[key] = v;
  }
  return fields;
}

/** Memberstack's default fields are "first-name" and "last-name"; some sites use "name". */
function nameOf(fields: CustomFields): string | undefined {
  const pick = (...keys: string[]) => keys.map((k) => fields[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim();
  const full = pick('name', 'full-name', 'fullName');
  if (full) return full.slice(0, 200);
  const joined = [pick('first-name', 'firstName', 'first_name'), pick('last-name', 'lastName', 'last_name')].filter(Boolean).join(' ');
  return joined ? joined.slice(0, 200) : undefined;
}

/**
 * What makes two deliveries the same event: Svix's message id (the same on
 * every retry) when the delivery came through Svix; otherwise the event's own
 * identity, its type, member, plan connection and firing time, since
 * Memberstack bodies carry no event id of their own.
 */
export function membershipEventId(event: MembershipEvent, svixId: string | undefined): string {
  if (svixId && /^[\w.:-]{1,200}$/.test(svixId)) return `svix:${svixId}`;
  const plan = 'plan' in event ? event.plan.id : '';
  const identity = `${event.type}|${event.memberId}|${plan}|${event.at}`;
  return `event:${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}
