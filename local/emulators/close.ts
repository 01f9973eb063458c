// Close CRM API v1 as our CRM adapter calls it (vendor-contracts §5): Basic
// auth with the key as username, /data/search/ for leads by contact e-mail or
// by website, PUT as a patch, and 429s whose body carries rate_reset. Text
// conditions match as Close documents them (advanced-filtering/search.md,
// CL5): `exact_value` the whole value, `phrase` the words of the value in
// order, case-insensitively (so "acme.com" is found in "https://www.acme.com/"
// but not in "notacme.com").
// A lead has one of the organisation's lead statuses (developer.close.com/api/
// resources/lead-statuses), set by status_id on create or update, the first
// status when none is given (api/resources/leads/create); GET /lead/{id}/
// answers its contacts, and DELETE /contact/{id}/ deletes one
// (api/resources/contacts/delete). Contacts are children of their lead
// (developer.close.com/resources/leads/).
import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import { declaredOnly, type Fields } from './declared.ts';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const CLOSE_KEY = 'api_local_close_key';
const ORGANIZATION = 'orga_local_agency';

/**
 * The organisation's lead statuses: Close's defaults for a new organisation, Potential (the first,
 * given to a lead created without one), Qualified and Bad Fit (help.close.io, "Organization
 * settings, statuses, & customizations"), and the agency's own for a client who has left, which the
 * local stack names in CLOSE_FORMER_CLIENT_STATUS_ID. Fixed ids, so that setting can name one.
 */
export const CLOSE_LEAD_STATUSES = [
  { id: 'stat_LocalPotential', label: 'Potential' },
  { id: 'stat_LocalQualified', label: 'Qualified' },
  { id: 'stat_LocalBadFit', label: 'Bad Fit' },
  { id: 'stat_LocalFormerClient', label: 'Former client' },
] as const;
export const CLOSE_FORMER_CLIENT_STATUS = CLOSE_LEAD_STATUSES[3].id;

interface Contact {
  id: string;
  lead_id: string;
  name?: string;
  emails: { type?: string; email: string }[];
  phones: { type?: string; phone: string }[];
}
interface Lead {
  id: string;
  name: string;
  display_name: string;
  url?: string;
  description?: string;
  status_id?: string;
  status_label?: string;
  custom: Record<string, unknown>;
  date_created: string;
  date_updated: string;
  [field: string]: unknown;
}
interface State {
  leads: Lead[];
  contacts: Contact[];
}
const empty = (): State => ({ leads: [], contacts: [] });
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

type Query = { type: string; [k: string]: unknown };

export const CLOSE_DIFFERENCES = [
  'Search understands and, or, object_type, has_related and field_condition, with text conditions exact_value and phrase only; words are runs of letters and digits, as near as we can tell to how Close tokenises.',
  'Refuses (400 field-errors) a body field outside what vendor-contracts §5 lists for the routes we call (Close publishes no machine-readable description here), and unknown routes (404).',
  'No custom field definitions or activities; a lead\'s other fields are kept as sent.',
  'Lead statuses are a fixed list (Close\'s three defaults and "Former client"); they cannot be added, renamed or deleted here.',
  'An unknown status_id is refused with 400 field-errors { status_id }: what Close answers for one is not published, so the emulator takes the conservative reading.',
  'GET /lead/{id}/ answers every field whatever _fields asks for.',
  'Enforces one limit per API key over every route (CLOSE_RATE_LIMIT, 20 a second: the figure of Close\'s own example) in fixed windows; Close counts each endpoint group apart, with figures it does not publish.',
];

const any = (...names: string[]): Fields => Object.fromEntries(names.map((name) => [name, 'any']));
const CONTACT_FIELDS: Fields = { ...any('name', 'title', 'urls', 'custom.*'), emails: [any('type', 'email')], phones: [any('type', 'phone')] };
const LEAD_FIELDS: Fields = { ...any('name', 'url', 'description', 'status_id', 'addresses', 'custom.*'), contacts: [CONTACT_FIELDS] };

/** Words, as a text condition compares them. */
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const containsPhrase = (text: string, phrase: string) => {
  const words = wordsOf(text);
  const wanted = wordsOf(phrase);
  return wanted.length > 0 && words.some((_, i) => wanted.every((w, j) => words[i + j] === w));
};

/** The modes of every text condition in a query. */
function textModes(q: Query): string[] {
  const condition = q.condition as { type?: string; mode?: string } | undefined;
  const own = q.type === 'field_condition' && condition?.type === 'text' ? [String(condition.mode)] : [];
  const nested = [...((q.queries as Query[] | undefined) ?? []), ...(q.related_query ? [q.related_query as Query] : [])];
  return [...own, ...nested.flatMap(textModes)];
}

export function closeEmulator(): VendorEmulator {
  let state = empty();
  const app = new Hono().basePath('/close/api/v1');

  app.use('*', async (c, next) => {
    const expected = `Basic ${Buffer.from(`${CLOSE_KEY}:`).toString('base64')}`;
    if (c.req.header('authorization') !== expected) return c.json({ error: 'Unauthorized' }, 401);
    await next();
  });
  app.use(
    '*',
    declaredOnly({
      base: '/close/api/v1',
      operations: [
        { method: 'POST', path: '/data/search/', body: { ...any('query', 'results_limit', 'cursor', 'sort', 'include_counts'), _fields: any('lead', 'contact') } },
        { method: 'POST', path: '/lead/', body: LEAD_FIELDS },
        { method: 'GET', path: '/lead/:id/', query: ['_fields'] },
        { method: 'PUT', path: '/lead/:id/', body: LEAD_FIELDS },
        { method: 'POST', path: '/contact/', body: { ...CONTACT_FIELDS, lead_id: 'any' } },
        { method: 'DELETE', path: '/contact/:id/' },
        // Not called by the adapter: where an operator finds the id CLOSE_FORMER_CLIENT_STATUS_ID takes.
        { method: 'GET', path: '/status/lead/' },
      ],
      refuse: (c, undeclared) =>
        undeclared.kind === 'operation'
          ? c.json({ error: 'Not found' }, 404)
          : c.json({ errors: [], 'field-errors': { [undeclared.kind === 'query' ? undeclared.name : undeclared.path.join('.')]: 'Unknown field.' } }, 400),
    }),
  );

  const contactsOf = (lead: Lead) => state.contacts.filter((x) => x.lead_id === lead.id);
  const view = (lead: Lead) => ({ ...lead, contacts: contactsOf(lead) });
  const bad = (c: Context, message: string) => c.json({ error: message, 'field-errors': {} }, 400);
  const statusOf = (id: unknown) => CLOSE_LEAD_STATUSES.find((s) => s.id === id);
  const unknownStatus = (c: Context) => c.json({ errors: [], 'field-errors': { status_id: 'Unknown lead status.' } }, 400);

  /** Evaluates the subset of the search DSL the adapter uses: and, object_type, has_related, field_condition. */
  const matches = (lead: Lead, q: Query, object: 'lead' | 'contact' | 'contact_email' = 'lead', item?: unknown): boolean => {
    switch (q.type) {
      case 'and':
        return (q.queries as Query[]).every((sub) => matches(lead, sub, object, item));
      case 'or':
        return (q.queries as Query[]).some((sub) => matches(lead, sub, object, item));
      case 'object_type':
        return q.object_type === object;
      case 'has_related': {
        const related = q.related_object_type as 'contact' | 'contact_email';
        if (related === 'contact') return contactsOf(lead).some((contact) => matches(lead, q.related_query as Query, 'contact', contact));
        if (related === 'contact_email')
          return ((item as Contact | undefined)?.emails ?? []).some((e) => matches(lead, q.related_query as Query, 'contact_email', e));
        return false;
      }
      case 'field_condition': {
        const field = q.field as { object_type: string; field_name: string };
        const condition = q.condition as { type: string; mode?: string; value: string };
        const source = field.object_type === 'lead' ? lead : item;
        const actual = String((source as Record<string, unknown> | undefined)?.[field.field_name] ?? '');
        const wanted = String(condition.value ?? '');
        return condition.mode === 'exact_value' ? actual.toLowerCase() === wanted.toLowerCase() : containsPhrase(actual, wanted);
      }
      default:
        return false;
    }
  };

  app.post('/data/search/', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { query?: Query; results_limit?: number; _fields?: { lead?: string[] } } | null;
    if (!body?.query) return bad(c, 'query is required');
    const unsupported = textModes(body.query).find((mode) => mode !== 'exact_value' && mode !== 'phrase');
    if (unsupported !== undefined) return bad(c, `This emulator matches text conditions in exact_value and phrase mode only, not ${unsupported}`);
    const found = state.leads.filter((lead) => matches(lead, body.query!)).slice(0, body.results_limit ?? 100);
    const fields = body._fields?.lead ?? ['id', 'display_name'];
    return c.json({ data: found.map((l) => ({ __object_type: 'lead', ...Object.fromEntries(fields.map((f) => [f, l[f] ?? null])) })), cursor: null });
  });

  app.post('/lead/', async (c) => {
    const body = (await c.req.json().catch(() => null)) as (Partial<Lead> & { contacts?: Omit<Contact, 'id' | 'lead_id'>[] }) | null;
    if (!body?.name) return bad(c, 'name is required');
    const status = body.status_id === undefined ? CLOSE_LEAD_STATUSES[0] : statusOf(body.status_id);
    if (!status) return unknownStatus(c);
    const at = new Date().toISOString();
    const { contacts = [], ...fields } = body;
    const lead: Lead = {
      ...fields,
      id: newId('lead'),
      name: body.name,
      display_name: body.name,
      status_id: status.id,
      status_label: status.label,
      custom: {},
      date_created: at,
      date_updated: at,
    };
    state.leads.push(lead);
    for (const contact of contacts) state.contacts.push({ id: newId('cont'), lead_id: lead.id, name: contact.name, emails: contact.emails ?? [], phones: contact.phones ?? [] });
    return c.json(view(lead));
  });

  app.get('/lead/:id/', (c) => {
    const lead = state.leads.find((l) => l.id === c.req.param('id'));
    return lead ? c.json(view(lead)) : c.json({ error: 'Not found' }, 404);
  });

  app.put('/lead/:id/', async (c) => {
    const lead = state.leads.find((l) => l.id === c.req.param('id'));
    if (!lead) return c.json({ error: 'Not found' }, 404);
    const patch = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!patch) return bad(c, 'invalid JSON');
    const { contacts: _ignored, id: _id, ...fields } = patch;
    const status = fields.status_id === undefined ? undefined : statusOf(fields.status_id);
    if (fields.status_id !== undefined && !status) return unknownStatus(c);
    Object.assign(lead, fields, status ? { status_label: status.label } : {});
    if (typeof fields.name === 'string') lead.display_name = fields.name;
    lead.date_updated = new Date().toISOString();
    return c.json(view(lead));
  });

  app.post('/contact/', async (c) => {
    const body = (await c.req.json().catch(() => null)) as (Partial<Contact> & { lead_id?: string }) | null;
    if (!body?.lead_id || !state.leads.some((l) => l.id === body.lead_id)) return bad(c, 'lead_id is required');
    const contact: Contact = { id: newId('cont'), lead_id: body.lead_id, name: body.name, emails: body.emails ?? [], phones: body.phones ?? [] };
    state.contacts.push(contact);
    return c.json(contact);
  });

  app.delete('/contact/:id/', (c) => {
    const contact = state.contacts.find((x) => x.id === c.req.param('id'));
    if (!contact) return c.json({ error: 'Not found' }, 404);
    state.contacts = state.contacts.filter((x) => x !== contact);
    return c.json({});
  });

  app.get('/status/lead/', (c) => c.json({ data: CLOSE_LEAD_STATUSES.map((s) => ({ ...s, color: null, organization_id: ORGANIZATION })), has_more: false }));

  return {
    vendor: 'close',
    prefixes: ['/close'],
    app,
    records: { crm: () => state.leads.map(view) },
    failure: (c) => c.json({ error: 'Internal server error' }, 500),
    throttle: (c, seconds) => c.json({ error: { rate_reset: Math.round(seconds * 1000) / 1000, message: 'API call count exceeded for this period' } }, 429),
    // Per API key (the organisation gets three times as much), answered with a RateLimit header and, past it, a
    // 429 whose body says rate_reset (developer.close.com/api/overview/rate-limits; vendor-contracts §5).
    rateLimit: {
      setting: 'CLOSE_RATE_LIMIT',
      published: { limit: 20, windowSeconds: 1 },
      subject: (c) => c.req.header('authorization'),
      headers: ({ limit, remaining, resetAt }) => ({
        ratelimit: `limit=${limit}, remaining=${remaining}, reset=${Math.max(0, (resetAt - Date.now()) / 1000).toFixed(3)}`,
      }),
    },
    reset: () => (state = empty()),
    differences: CLOSE_DIFFERENCES,
    dump: () => state,
    load: (saved) => (state = saved as State),
  };
}

export const closeVendor: LocalVendor = {
  create: () => closeEmulator(),
  env: (ctx) => ({ CLOSE_API_KEY: CLOSE_KEY, CLOSE_API_BASE: `${ctx.hostUrl}/close/api/v1`, CLOSE_FORMER_CLIENT_STATUS_ID: CLOSE_FORMER_CLIENT_STATUS }),
};
