// The onboarding form as the portal sends it, with the contract's aliases,
// and its normalised form: one name per field, validated values.
import { normaliseEmail, type Account } from '../accounts/accounts.ts';
import { InvalidInput, type ErrorDetail } from '../errors.ts';
import { idParam } from '../http/route.ts';
import { storableKey } from '../store/map-keys.ts';
import { storableNumber } from '../store/numbers.ts';
import { ianaZone } from '../time-zones.ts';
import { websiteOf } from '../website.ts';

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength }) as const;
const phone = { type: 'string', maxLength: 40, pattern: '^[0-9+()./ -]{3,40}$' } as const;
const scalar = { anyOf: [{ type: 'string', maxLength: 2000 }, storableNumber, { type: 'boolean' }, { type: 'null' }] } as const;

/**
 * The most `metadata` may weigh, serialised as JSON. The schema bounds its
 * shape (50 keys of up to 50 values, two levels deep) but not its total, which
 * would reach megabytes; this keeps an account record, metadata and all, far
 * below DynamoDB's 400 KB item limit.
 */
export const METADATA_MAX_BYTES = 16 * 1024;

export const onboardingBody = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    accountId: { ...idParam, description: "The account to onboard; default: the caller's only account (a first one is opened for a caller with none)" },
    email: { type: 'string', format: 'email', maxLength: 254 },
    companyName: text(200),
    company_name: text(200),
    company: text(200),
    businessName: text(200),
    companyUrl: text(2048),
    company_url: text(2048),
    website: text(2048),
    domain: text(2048),
    phone,
    phone_number: phone,
    location: text(200),
    city_state: text(200),
    city: text(200),
    timezone: text(64),
    time_zone: text(64),
    plan: { type: 'string', maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' },
    metadata: {
      type: 'object',
      description: `Free-form: at most 50 keys, two levels deep, ${METADATA_MAX_BYTES / 1024} KB as JSON`,
      maxProperties: 50,
      propertyNames: storableKey,
      // At most two levels deep: free-form, but bounded (DynamoDB nests 32 levels at most).
      additionalProperties: {
        anyOf: [scalar, { type: 'array', maxItems: 50, items: scalar }, { type: 'object', maxProperties: 50, propertyNames: storableKey, additionalProperties: scalar }],
      },
    },
  },
} as const;

export interface OnboardingIntake {
  email: string;
  companyName: string;
  companyUrl?: string;
  companyDomain?: string;
  phone?: string;
  location?: string;
  timezone?: string;
  plan?: string;
  metadata?: Record<string, unknown>;
}

/** An account onboarded again (reopened, or paid for through a membership) from the details it kept, with this contact. */
export const intakeOf = (account: Account, email: string, companyName: string): OnboardingIntake => ({
  email,
  companyName,
  companyUrl: account.company_url,
  companyDomain: account.company_domain,
  phone: account.phone,
  location: account.location,
  timezone: account.timezone,
  plan: account.requested_plan,
  metadata: account.metadata,
});

type Body = Record<string, unknown>;

const ALIASES = {
  companyName: ['companyName', 'company_name', 'company', 'businessName'],
  companyUrl: ['companyUrl', 'company_url', 'website', 'domain'],
  phone: ['phone', 'phone_number'],
  location: ['location', 'city_state', 'city'],
  timezone: ['timezone', 'time_zone'],
} as const;

/** The normalised submission; every problem is reported at once. */
export function normaliseIntake(body: Body): OnboardingIntake {
  const problems: ErrorDetail[] = [];
  const pick = (field: keyof typeof ALIASES): string | undefined => {
    const given = ALIASES[field].filter((name) => typeof body[name] === 'string' && (body[name] as string).trim());
    const values = new Set(given.map((name) => (body[name] as string).trim()));
    if (values.size > 1) problems.push({ path: `/body/${given[1]}`, message: `conflicts with ${given[0]}; send one of ${ALIASES[field].join(', ')}` });
    return given.length ? (body[given[0]!] as string).trim() : undefined;
  };

  const companyName = pick('companyName');
  if (!companyName) problems.push({ path: '/body/companyName', message: `is required (or one of ${ALIASES.companyName.slice(1).join(', ')})` });

  const rawUrl = pick('companyUrl');
  const url = rawUrl === undefined ? undefined : websiteOf(rawUrl);
  if (rawUrl !== undefined && !url) problems.push({ path: '/body/companyUrl', message: 'must be a website address, e.g. https://example.com' });

  const rawZone = pick('timezone');
  const timezone = rawZone === undefined ? undefined : ianaZone(rawZone);
  if (rawZone !== undefined && !timezone) problems.push({ path: '/body/timezone', message: 'must be an IANA time zone, e.g. Europe/Berlin' });

  if (body.metadata !== undefined && Buffer.byteLength(JSON.stringify(body.metadata)) > METADATA_MAX_BYTES) {
    problems.push({ path: '/body/metadata', message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` });
  }

  if (problems.length) throw new InvalidInput('The onboarding form is incomplete or invalid', problems);
  return {
    email: normaliseEmail(String(body.email)),
    companyName: companyName!,
    companyUrl: url?.href,
    companyDomain: url?.hostname.replace(/^www\./, ''),
    phone: pick('phone'),
    location: pick('location'),
    timezone,
    plan: typeof body.plan === 'string' ? body.plan.toLowerCase() : undefined,
    metadata: body.metadata as Record<string, unknown> | undefined,
  };
}
