// The Resend adapter, through the resend SDK, against the local Resend emulator.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resendMailer } from '../../../lib/integrations/resend-mailer.ts';
import { resendVendor } from '../../../local/emulators/resend.ts';
import { quickPolicy, useEmulators } from '../../support/emulators.ts';

const emu = useEmulators(resendVendor);
const mailer = () => resendMailer({ apiKey: emu.env.RESEND_API_KEY!, baseUrl: emu.env.RESEND_BASE_URL!, from: 'Agency <a@agency.test>' }, quickPolicy);
const email = (key: string, to = 'client@example.com') => ({
  to,
  subject: 'Welcome',
  html: '<p>Hello</p>',
  text: 'Hello',
  idempotencyKey: key,
  kind: 'welcome',
});

describe('the Resend mailer', () => {
  beforeEach(() => emu.reset());

  it('sends text and HTML parts, tagged with the kind', async () => {
    const { id } = await mailer().send(email('k-1'));
    const [sent] = await emu.get('emails');
    expect(sent).toMatchObject({ id, to: ['client@example.com'], subject: 'Welcome', html: '<p>Hello</p>', text: 'Hello' });
    expect(sent.tags).toEqual([{ name: 'kind', value: 'welcome' }]);
  });

  it('never sends twice for one idempotency key', async () => {
    const first = await mailer().send(email('k-2'));
    const second = await mailer().send(email('k-2'));
    expect(second.id).toBe(first.id);
    expect(await emu.get('emails')).toHaveLength(1);
  });

  it('is held to one e-mail per key for 24 hours only, as Resend remembers a key that long (the emulator as Resend documents it)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const first = await mailer().send(email('k-day'));
      vi.setSystemTime(Date.now() + 24 * 3600 * 1000 - 60_000);
      expect((await mailer().send(email('k-day'))).id).toBe(first.id);
      vi.setSystemTime(Date.now() + 120_000);
      expect((await mailer().send(email('k-day'))).id).not.toBe(first.id);
      expect(await emu.get('emails')).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('retries a failing Resend and sends once', async () => {
    await emu.fault({ vendor: 'resend', mode: 'fail', count: 2 });
    await mailer().send(email('k-3'));
    expect(await emu.get('emails')).toHaveLength(1);
  });

  it('honours the retry-after of a throttle', async () => {
    await emu.fault({ vendor: 'resend', mode: 'throttle', count: 1, retryAfterSeconds: 1 });
    await mailer().send(email('k-4'));
    expect(await emu.get('emails')).toHaveLength(1);
  });

  it('gives up on a Resend that keeps failing with a transient VendorError', async () => {
    await emu.fault({ vendor: 'resend', mode: 'fail', count: 10 });
    const error = await mailer().send(email('k-5')).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorUnavailable', vendor: 'resend' });
    expect(error.context).toMatchObject({ transient: true, status: 500, vendorCode: 'internal_server_error' });
    expect(await emu.get('emails')).toHaveLength(0);
    await emu.reset();
  });

  it('times out a hanging Resend', async () => {
    await emu.fault({ vendor: 'resend', mode: 'hang', count: 10 });
    const error = await mailer().send(email('k-6')).catch((e) => e);
    expect(error.name).toBe('VendorUnavailable');
    expect(error.message).toContain('could not be reached');
    await emu.reset();
  });

  it('does not retry a refusal', async () => {
    const bad = resendMailer({ apiKey: 're_wrong', baseUrl: emu.env.RESEND_BASE_URL!, from: 'a@b.co' }, quickPolicy);
    const error = await bad.send(email('k-7')).catch((e) => e);
    expect(error).toMatchObject({ name: 'VendorRejected' });
    expect(error.context).toMatchObject({ status: 403, vendorCode: 'invalid_api_key' });
  });
});
