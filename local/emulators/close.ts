// Close CRM API v1 as our CRM adapter calls it (vendor-contracts §5): Basic
// auth with the key as username, /data/search/ for leads by contact e-mail or
// by website, PUT as a patch, and 429s whose body carries rate_reset.
import { Hono, type Context } from 'hono';
import { randomBytes } from 'node:crypto';
import type { VendorEmulator } from './host.ts';
import type { LocalVendor } from './index.ts';

export const CLOSE_KEY = 'api_local_close_key';

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

export function closeEmulator(): VendorEmulator {
  let state = empty();
  const app = new Hono().basePath('/close/api/v1');

  app.use('*', async (c, next) => {
    const expected = `Basic ${Buffer.from(`${CLOSE_KEY}:`).toString('base64')}`;
    if (c.req.header('authorization') !== expected) return c.json({ error: 'Unauthorized' }, 401);
    await next();
  });

  const contactsOf = (lead: Lead) => state.contacts.filter((x) => x.lead_id === lead.id);
  const view = (lead: Lead) => ({ ...lead, contacts: contactsOf(lead) });
  const bad = (c: Context, message: string) => c.json({ error: message, 'field-errors': {} }, 400);

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
        const actual = String((source as Record<string, unknown> | undefined)?.[field.field_name] ?? '').toLowerCase();
        const wanted = String(condition.value ?? '').toLowerCase();
        return condition.mode === 'exact_value' ? actual === wanted : actual.includes(wanted);
      }
      default:
        return false;
    }
  };

  app.post('/data/search/', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { query?: Query; results_limit?: number } | null;
    if (!body?.query) return bad(c, 'query is required');
    const found = state.leads.filter((lead) => matches(lead, body.query!)).slice(0, body.results_limit ?? 100);
    return c.json({ data: found.map((l) => ({ __object_type: 'lead', id: l.id, display_name: l.display_name })), cursor: null });
  });

  app.post('/lead/', async (c) => {
    const body = (await c.req.json().catch(() => null)) as (Partial<Lead> & { contacts?: Omit<Contact, 'id' | 'lead_id'>[] }) | null;
    if (!body?.name) return bad(c, 'name is required');
    const at = new Date().toISOString();
    const { contacts = [], ...fields } = body;
    const lead: Lead = { ...fields, id: newId('lead'), name: body.name, display_name: body.name, custom: {}, date_created: at, date_updated: at };
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
    Object.assign(lead, fields);
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

  return {
    vendor: 'close',
    prefixes: ['/close'],
    app,
    records: { crm: () => state.leads.map(view) },
    failure: (c) => c.json({ error: 'Internal server error' }, 500),
    throttle: (c, seconds) => c.json({ error: { rate_reset: seconds, message: 'API call count exceeded for this period' } }, 429),
    reset: () => (state = empty()),
    dump: () => state,
    load: (saved) => (state = saved as State),
  };
}

export const closeVendor: LocalVendor = {
  create: () => closeEmulator(),
  env: (ctx) => ({ CLOSE_API_KEY: CLOSE_KEY, CLOSE_API_BASE: `${ctx.hostUrl}/close/api/v1` }),
};
