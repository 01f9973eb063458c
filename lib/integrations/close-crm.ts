// Close API v1 (vendor-contracts §5): Basic auth with the key as username,
// /data/search/ for finding leads (the legacy ?query= is deprecated), PUT as
// a patch. No idempotency keys, so we search before we create. A lead's status
// is set by its status_id, which users may rename without breaking
// (developer.close.com/api/resources/leads/create); its contacts are read from
// the lead and deleted one by one (DELETE /contact/{id}/), where a 404 is one
// already deleted.
import type { Crm, LeadDetails } from './crm.ts';
import { vendorHttp } from './http-client.ts';
import type { RetryPolicy } from './retry.ts';

interface Settings {
  apiKey: string;
  apiBase: string;
}

type SearchResult = { data: { id: string; url?: string | null }[] };

/** Leads a phrase search on the website may return, for us to check: enough to get past a few near misses. */
const DOMAIN_CANDIDATES = 10;
type Lead = { id: string; contacts?: { id: string; emails?: { email: string }[] }[] };

export function closeCrm(settings: Settings, policy: RetryPolicy & { timeoutMs: number }): Crm {
  const http = vendorHttp({
    vendor: 'close',
    baseUrl: settings.apiBase,
    headers: () => ({ authorization: `Basic ${Buffer.from(`${settings.apiKey}:`).toString('base64')}` }),
    policy,
    // Close puts the wait in the body: {"error": {"rate_reset": <seconds>}}.
    retryHint: (_res, body) => {
      const seconds = (body as { error?: { rate_reset?: number } } | undefined)?.error?.rate_reset;
      return typeof seconds === 'number' ? seconds * 1000 : undefined;
    },
    errorCode: (body) => {
      const { error, 'field-errors': fieldErrors } = (body ?? {}) as { error?: unknown; 'field-errors'?: Record<string, unknown> };
      if (typeof error === 'string' && /^[\w ]{1,40}$/.test(error)) return error.replace(/ /g, '_').toLowerCase();
      // A refused field (e.g. an unknown status_id) is named, never its message.
      const field = Object.keys(fieldErrors ?? {})[0];
      return field && /^[\w.]{1,40}$/.test(field) ? `invalid_${field}` : undefined;
    },
  });

  const search = async (operation: string, condition: object, resultsLimit = 1) => {
    const res = await http<SearchResult>(operation, {
      path: '/data/search/',
      json: {
        query: { type: 'and', queries: [{ type: 'object_type', object_type: 'lead' }, condition] },
        results_limit: resultsLimit,
        _fields: { lead: ['id', 'display_name', 'url'] },
      },
    });
    return res.body.data;
  };

  const contactOf = (details: LeadDetails) => ({
    name: details.contact.name ?? details.contact.email,
    emails: [{ type: 'office', email: details.contact.email }],
    phones: details.contact.phone ? [{ type: 'office', phone: details.contact.phone }] : [],
  });
  const companyFields = (details: LeadDetails) => ({
    name: details.companyName,
    ...(details.website ? { url: details.website } : {}),
    ...(details.description ? { description: details.description } : {}),
  });

  return {
    findLeadByEmail: async (email) =>
      (
        await search('find the lead by e-mail', {
          type: 'has_related',
          this_object_type: 'lead',
          related_object_type: 'contact',
          related_query: {
            type: 'has_related',
            this_object_type: 'contact',
            related_object_type: 'contact_email',
            related_query: {
              type: 'field_condition',
              field: { type: 'regular_field', object_type: 'contact_email', field_name: 'email' },
              condition: { type: 'text', mode: 'exact_value', value: email.toLowerCase() },
            },
          },
        })
      )[0]?.id,

    // Close matches a phrase of words, which "acme.com" also is in "acme.com.evil.example"; the lead
    // counts only if its website's host is the domain itself.
    findLeadByDomain: async (domain) => {
      const candidates = await search(
        'find the lead by domain',
        {
          type: 'field_condition',
          field: { type: 'regular_field', object_type: 'lead', field_name: 'url' },
          condition: { type: 'text', mode: 'phrase', value: domain.toLowerCase() },
        },
        DOMAIN_CANDIDATES,
      );
      return candidates.find((lead) => hostOf(lead.url) === hostOf(domain))?.id;
    },

    async createLead(details) {
      const res = await http<Lead>('create the lead', {
        path: '/lead/',
        json: { ...companyFields(details), contacts: [contactOf(details)] },
        // A lost answer is not retried here: the step runs again and finds the lead by its contact's e-mail.
        repeatable: false,
      });
      return res.body.id;
    },

    async updateLead(leadId, details) {
      const res = await http<Lead>('update the lead', { method: 'PUT', path: `/lead/${leadId}/`, json: companyFields(details) });
      const email = details.contact.email.toLowerCase();
      const known = (res.body.contacts ?? []).some((c) => (c.emails ?? []).some((e) => e.email.toLowerCase() === email));
      if (!known) await http('add the contact', { path: '/contact/', json: { lead_id: leadId, ...contactOf(details) }, repeatable: false });
    },

    async setLeadStatus(leadId, statusId) {
      await http('set the lead status', { method: 'PUT', path: `/lead/${leadId}/`, json: { status_id: statusId } });
    },

    async deleteContacts(leadId) {
      const lead = await http<Lead>('read the lead\'s contacts', { path: `/lead/${leadId}/?_fields=id,contacts`, accept: [404] });
      // A lead that is gone took its contacts with it.
      if (lead.status === 404) return { contacts: 0 };
      let deleted = 0;
      for (const contact of lead.body.contacts ?? []) {
        const res = await http('delete a contact', { method: 'DELETE', path: `/contact/${contact.id}/`, accept: [404] });
        if (res.status !== 404) deleted += 1;
      }
      return { contacts: deleted };
    },
  };
}

/** The host of a website or bare domain, lower case, without a leading www. */
function hostOf(website: string | null | undefined): string | undefined {
  if (!website) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(website) ? website : `https://${website}`).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}
