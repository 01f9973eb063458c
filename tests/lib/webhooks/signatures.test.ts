// Signature checks against fixed vectors: Svix's own published one, and
// Calendly and Cal.com ones computed once with `openssl dgst -sha256 -hmac`,
// not with the code under test.
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/errors.ts';
import { svixKey, verifyCalCom, verifyCalendly, verifySvix } from '../../../lib/webhooks/signatures.ts';

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as InvalidInput).code).toBe('invalid_signature');
    return (error as InvalidInput).message;
  }
  throw new Error('expected a refusal');
};

describe('Svix signatures (Memberstack)', () => {
  // The Standard Webhooks / Svix published test vector.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"test": 2432232314}';
  const headers = { 'svix-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'svix-timestamp': '1614265330', 'svix-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
  const signedAt = new Date(1614265330 * 1000);

  it("accepts Svix's published vector, with or without the whsec_ prefix", () => {
    expect(() => verifySvix(secret, { headers, rawBody: body }, signedAt)).not.toThrow();
    expect(() => verifySvix(secret.slice(6), { headers, rawBody: body }, signedAt)).not.toThrow();
  });

  it('accepts a header listing several signatures when any v1 one matches (a secret being rotated)', () => {
    const several = { ...headers, 'svix-signature': `v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= v2,xyz ${headers['svix-signature']}` };
    expect(() => verifySvix(secret, { headers: several, rawBody: body }, signedAt)).not.toThrow();
  });

  it('refuses a changed body, id or timestamp, another secret, and other versions', () => {
    expect(refusal(() => verifySvix(secret, { headers, rawBody: '{"test": 2432232315}' }, signedAt))).toContain('does not match');
    expect(refusal(() => verifySvix(secret, { headers: { ...headers, 'svix-id': 'msg_other' }, rawBody: body }, signedAt))).toContain('does not match');
    expect(refusal(() => verifySvix(secret, { headers: { ...headers, 'svix-timestamp': '1614265331' }, rawBody: body }, signedAt))).toContain('does not match');
    expect(refusal(() => verifySvix('whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA==', { headers, rawBody: body }, signedAt))).toContain('does not match');
    const v2 = { ...headers, 'svix-signature': headers['svix-signature'].replace('v1,', 'v2,') };
    expect(refusal(() => verifySvix(secret, { headers: v2, rawBody: body }, signedAt))).toContain('does not match');
  });

  it('refuses timestamps more than five minutes off, either way, and missing headers', () => {
    expect(() => verifySvix(secret, { headers, rawBody: body }, new Date(signedAt.getTime() + 300_000))).not.toThrow();
    expect(refusal(() => verifySvix(secret, { headers, rawBody: body }, new Date(signedAt.getTime() + 301_000)))).toContain('five minutes');
    expect(refusal(() => verifySvix(secret, { headers, rawBody: body }, new Date(signedAt.getTime() - 301_000)))).toContain('five minutes');
    for (const name of ['svix-id', 'svix-timestamp', 'svix-signature'] as const) {
      expect(refusal(() => verifySvix(secret, { headers: { ...headers, [name]: undefined }, rawBody: body }, signedAt))).toContain('required');
    }
  });

  it('knows a Svix secret from something else', () => {
    expect(svixKey(secret)?.length).toBe(24);
    expect(svixKey('whsec_short')).toBeUndefined();
    expect(svixKey('whsec_not base64!!')).toBeUndefined();
  });
});

describe('Calendly signatures', () => {
  const key = 'calendly-signing-key-for-tests';
  const body = '{"event":"invitee.created","payload":{"uri":"https://api.calendly.com/scheduled_events/EV1/invitees/INV1"}}';
  const v1 = '6841bcbe4fc1c3aae2b5a82088486ebf64edf2cdc5c87ebb0c488d3260879d78';
  const at = new Date(1_700_000_000 * 1000);
  const signed = (header: string) => ({ headers: { 'calendly-webhook-signature': header }, rawBody: body });

  it('accepts t=<unix>,v1=<hex HMAC of "t.body"> (hex in either case)', () => {
    expect(() => verifyCalendly(key, signed(`t=1700000000,v1=${v1}`), at)).not.toThrow();
    expect(() => verifyCalendly(key, signed(`t=1700000000,v1=${v1.toUpperCase()}`), at)).not.toThrow();
  });

  it('refuses stale signatures (over three minutes), other bodies, keys or timestamps, and malformed headers', () => {
    expect(refusal(() => verifyCalendly(key, signed(`t=1700000000,v1=${v1}`), new Date(at.getTime() + 181_000)))).toContain('stale');
    expect(refusal(() => verifyCalendly(key, { ...signed(`t=1700000000,v1=${v1}`), rawBody: `${body} ` }, at))).toContain('does not match');
    expect(refusal(() => verifyCalendly('another-key', signed(`t=1700000000,v1=${v1}`), at))).toContain('does not match');
    expect(refusal(() => verifyCalendly(key, signed(`t=1700000001,v1=${v1}`), at))).toContain('does not match');
    expect(refusal(() => verifyCalendly(key, signed(`v1=${v1}`), at))).toContain('stale');
    expect(refusal(() => verifyCalendly(key, signed('t=1700000000,v1=zz'), at))).toContain('does not match');
    expect(refusal(() => verifyCalendly(key, { headers: {}, rawBody: body }, at))).toContain('required');
  });
});

describe('Cal.com signatures', () => {
  const secret = 'calcom-secret-for-tests';
  const body = '{"triggerEvent":"BOOKING_CREATED","payload":{"uid":"bk_1"}}';
  const hex = '41931e47a88efd2aca859f8a6c6de86629e201dc7cd45f4d99532ee0b3c0516a';
  const signed = (header?: string) => ({ headers: { 'x-cal-signature-256': header }, rawBody: body });

  it('accepts the hex HMAC of the raw body', () => {
    expect(() => verifyCalCom(secret, signed(hex))).not.toThrow();
  });

  it('refuses another body or secret, "no-secret-provided", a truncated signature and none', () => {
    expect(refusal(() => verifyCalCom(secret, { ...signed(hex), rawBody: body.replace('bk_1', 'bk_2') }))).toContain('does not match');
    expect(refusal(() => verifyCalCom('other', signed(hex)))).toContain('does not match');
    expect(refusal(() => verifyCalCom(secret, signed('no-secret-provided')))).toContain('does not match');
    expect(refusal(() => verifyCalCom(secret, signed(hex.slice(0, 62))))).toContain('does not match');
    expect(refusal(() => verifyCalCom(secret, signed()))).toContain('required');
  });
});
