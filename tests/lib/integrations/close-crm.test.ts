import { beforeEach, describe, expect, it } from 'vitest';
import { closeCrm } from '../../../lib/integrations/close-crm.ts';
import { CLOSE_LEAD_STATUSES, closeVendor } from '../../../local/emulators/close.ts';
import { countingPace, quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(closeVendor);
const crm = (policy: Parameters<typeof closeCrm>[1] = quickPolicy) => closeCrm({ apiKey: emu.env.CLOSE_API_KEY!, apiBase: emu.env.CLOSE_API_BASE! }, policy);
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

  describe("a client's lead when the client leaves: its status, and its contacts on erasure", () => {
    type Recorded = { id: string; status_id?: string; status_label?: string; contacts: { id: string; name?: string; emails: { email: string }[]; phones: unknown[] }[] };
    const lead = async (id: string) => (await emu.get<Recorded[]>('crm')).find((l) => l.id === id)!;
    const formerClient = () => emu.env.CLOSE_FORMER_CLIENT_STATUS_ID!;
    const authorization = () => `Basic ${Buffer.from(`${emu.env.CLOSE_API_KEY}:`).toString('base64')}`;
    const requests = () => emu.get<{ method: string; path: string; status?: number }[]>('requests?vendor=close');

    /** A lead with two contacts, as onboarding leaves it after a second owner's run. */
    async function client() {
      const c = crm();
      const id = await c.createLead(details);
      await c.updateLead(id, { ...details, contact: { name: 'Bo', email: 'bo@acme.example', phone: '+1 556' } });
      return id;
    }

    it("gives a new lead the organisation's first status, and sets the one asked for, however often", async () => {
      const id = await client();
      expect(await lead(id)).toMatchObject({ status_id: CLOSE_LEAD_STATUSES[0].id, status_label: 'Potential' });
      await crm().setLeadStatus(id, formerClient());
      await crm().setLeadStatus(id, formerClient());
      expect(await lead(id)).toMatchObject({ status_id: formerClient(), status_label: 'Former client', name: 'Acme' });
      expect((await lead(id)).contacts).toHaveLength(2);
    });

    it('lists the lead statuses, the local stack\'s "former client" among them', async () => {
      const res = await fetch(`${emu.env.CLOSE_API_BASE}/status/lead/`, { headers: { authorization: authorization() } });
      const { data } = (await res.json()) as { data: { id: string; label: string }[] };
      expect(data.map((s) => s.label)).toEqual(['Potential', 'Qualified', 'Bad Fit', 'Former client']);
      expect(data.find((s) => s.id === formerClient())?.label).toBe('Former client');
    });

    it('is refused a status the organisation does not have (400 naming status_id), and changes nothing', async () => {
      const id = await client();
      const error = await crm().setLeadStatus(id, 'stat_nonexistent').catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorRejected', vendor: 'close', context: { status: 400, vendorCode: 'invalid_status_id' } });
      expect(await lead(id)).toMatchObject({ status_id: CLOSE_LEAD_STATUSES[0].id });
      const unknownLead = await crm().setLeadStatus('lead_nonexistent', formerClient()).catch((e) => e);
      expect(unknownLead).toMatchObject({ name: 'VendorRejected', context: { status: 404 } });
    });

    it('deletes every contact of the lead, their e-mails and phones with them, once however often it is asked', async () => {
      const id = await client();
      const other = await crm().createLead({ companyName: 'Other', contact: { email: 'x@other.example' } });
      expect(await crm().deleteContacts(id)).toEqual({ contacts: 2 });
      expect(await crm().deleteContacts(id)).toEqual({ contacts: 0 });
      expect((await lead(id)).contacts).toEqual([]);
      expect(JSON.stringify(await lead(id))).not.toMatch(/ann@|bo@|\+1 55|"Ann"|"Bo"/i);
      expect((await lead(other)).contacts).toHaveLength(1);
      expect(await crm().findLeadByEmail('ann@acme.example')).toBeUndefined();
      // A lead that is gone took its contacts with it.
      expect(await crm().deleteContacts('lead_nonexistent')).toEqual({ contacts: 0 });
    });

    it('answers a contact already deleted as Close does (404), and counts only what it deleted', async () => {
      const id = await client();
      const [first] = (await lead(id)).contacts;
      const del = () => fetch(`${emu.env.CLOSE_API_BASE}/contact/${first!.id}/`, { method: 'DELETE', headers: { authorization: authorization() } });
      expect([(await del()).status, (await del()).status]).toEqual([200, 404]);
      expect(await crm().deleteContacts(id)).toEqual({ contacts: 1 });
    });

    it('fails transiently when Close keeps failing, and finishes when asked again', async () => {
      const id = await client();
      await emu.fault({ vendor: 'close', mode: 'fail', count: 3, match: '/contact/' });
      const error = await crm().deleteContacts(id).catch((e) => e);
      expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'close', context: { transient: true, status: 500 } });
      expect((await lead(id)).contacts).toHaveLength(2);
      expect(await crm().deleteContacts(id)).toEqual({ contacts: 2 });
      await emu.fault({ vendor: 'close', mode: 'fail', count: 3, match: 'status_id' });
      expect(await crm().setLeadStatus(id, formerClient()).catch((e) => e)).toMatchObject({ name: 'VendorUnavailable', context: { transient: true } });
    });

    it('waits for rate_reset when a status change or a delete is throttled, and retries it', async () => {
      const id = await client();
      await emu.fault({ vendor: 'close', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: 'status_id' });
      await emu.fault({ vendor: 'close', mode: 'throttle', count: 1, retryAfterSeconds: 1, match: '/contact/' });
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      await crm().setLeadStatus(id, formerClient());
      expect(await crm().deleteContacts(id)).toEqual({ contacts: 2 });
      expect((await requests()).map((r) => `${r.method} ${r.status}`)).toEqual(['PUT 429', 'PUT 200', 'GET 200', 'DELETE 429', 'DELETE 200', 'DELETE 200']);
      expect(await lead(id)).toMatchObject({ status_id: formerClient(), contacts: [] });
    });

    it('takes its pace for each request, and hands a throttle up to the step as MustWait', async () => {
      const id = await client();
      const pace = countingPace('close');
      await fetch(`${emu.url}/_local/requests`, { method: 'DELETE' });
      await crm({ ...quickPolicy, pace }).setLeadStatus(id, formerClient());
      await crm({ ...quickPolicy, pace }).deleteContacts(id);
      expect(pace.taken).toBe((await requests()).length);
      await emu.fault({ vendor: 'close', mode: 'throttle', count: 1, retryAfterSeconds: 2, match: 'status_id' });
      const error = await crm({ ...quickPolicy, pace }).setLeadStatus(id, formerClient()).catch((e) => e);
      expect(error).toMatchObject({ name: 'MustWait', vendor: 'close' });
      expect(pace.laters).toEqual([2000]);
    });
  });
});
