import { beforeEach, describe, expect, it } from 'vitest';
import { closeCrm } from '../../../lib/integrations/close-crm.ts';
import { closeVendor } from '../../../local/emulators/close.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(closeVendor);
const crm = () => closeCrm({ apiKey: emu.env.CLOSE_API_KEY!, apiBase: emu.env.CLOSE_API_BASE! }, quickPolicy);
const details = { companyName: 'Acme', website: 'https://acme.example', contact: { name: 'Ann', email: 'Ann@Acme.example', phone: '+1 555' } };

describe('the Close CRM', () => {
  beforeEach(() => emu.reset());

  it('creates a lead with its contact, then finds it by e-mail and by domain', async () => {
    const c = crm();
    expect(await c.findLeadByEmail('ann@acme.example')).toBeUndefined();
    const id = await c.createLead(details);
    expect(await c.findLeadByEmail('ANN@acme.example')).toBe(id);
    expect(await c.findLeadByDomain('acme.example')).toBe(id);
    const [lead] = await emu.get('crm');
    expect(lead).toMatchObject({ id, name: 'Acme', url: 'https://acme.example' });
    expect(lead.contacts[0].emails[0].email).toBe('Ann@Acme.example');
  });

  it('finds a lead by its website\'s domain only: not notacme.com for acme.com, nor acme.com.evil.example', async () => {
    const c = crm();
    const near = [
      await c.createLead({ ...details, companyName: 'Not Acme', website: 'https://notacme.com', contact: { email: 'a@notacme.com' } }),
      await c.createLead({ ...details, companyName: 'Evil', website: 'https://acme.com.evil.example/', contact: { email: 'b@evil.example' } }),
    ];
    expect(await c.findLeadByDomain('acme.com')).toBeUndefined();
    const acme = await c.createLead({ ...details, companyName: 'Acme', website: 'https://www.Acme.com/about', contact: { email: 'c@acme.com' } });
    expect(await c.findLeadByDomain('acme.com')).toBe(acme);
    expect(near).not.toContain(acme);
  });

  it('searches a website as a phrase of words, as Close documents, not as a substring', async () => {
    const c = crm();
    await c.createLead({ ...details, website: 'https://notacme.com', contact: { email: 'a@notacme.com' } });
    const search = (value: string) =>
      fetch(`${emu.env.CLOSE_API_BASE}/data/search/`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${emu.env.CLOSE_API_KEY}:`).toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: { type: 'field_condition', field: { type: 'regular_field', object_type: 'lead', field_name: 'url' }, condition: { type: 'text', mode: 'phrase', value } },
          _fields: { lead: ['id', 'url'] },
        }),
      }).then(async (r) => ((await r.json()) as { data: { url: string }[] }).data);
    expect(await search('acme.com')).toEqual([]);
    expect(await search('NOTACME.com')).toEqual([expect.objectContaining({ url: 'https://notacme.com' })]);
  });

  it('is refused, in Close\'s error shape, a field it does not declare', async () => {
    const res = await fetch(`${emu.env.CLOSE_API_BASE}/lead/`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${emu.env.CLOSE_API_KEY}:`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', contacts: [{ name: 'y', email: 'y@example.com' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: [], 'field-errors': { 'contacts.0.email': 'Unknown field.' } });
  });

  it('updates a lead as a patch and adds a missing contact once', async () => {
    const c = crm();
    const id = await c.createLead({ companyName: 'Old name', contact: { email: 'x@acme.example' } });
    await c.updateLead(id, details);
    await c.updateLead(id, details);
    const [lead] = await emu.get('crm');
    expect(lead.name).toBe('Acme');
    expect(lead.contacts).toHaveLength(2);
  });

  it('retries a search that failed once', async () => {
    await crm().createLead(details);
    await emu.fault({ vendor: 'close', mode: 'fail', count: 1 });
    expect(await crm().findLeadByEmail(details.contact.email)).toMatch(/^lead_/);
  });

  it('does not repeat a create whose answer was a 5xx (it may have been done), and says so', async () => {
    await emu.fault({ vendor: 'close', mode: 'fail', count: 1 });
    const error = await crm().createLead(details).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', context: { status: 500, outcomeUnknown: true } });
    await crm().createLead(details);
    expect(await emu.get('crm')).toHaveLength(1);
  });

  it('waits for rate_reset from the body when throttled', async () => {
    await emu.fault({ vendor: 'close', mode: 'throttle', count: 1, retryAfterSeconds: 1 });
    expect(await crm().findLeadByEmail('nobody@example.com')).toBeUndefined();
  });

  it('is refused with a wrong key', async () => {
    const error = await closeCrm({ apiKey: 'wrong', apiBase: emu.env.CLOSE_API_BASE! }, quickPolicy).createLead(details).catch((e) => e);
    expect(error.context).toMatchObject({ status: 401, transient: false });
  });
});
