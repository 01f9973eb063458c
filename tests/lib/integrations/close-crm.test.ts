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
