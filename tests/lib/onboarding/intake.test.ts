import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/errors.ts';
import { METADATA_MAX_BYTES, normaliseIntake } from '../../../lib/onboarding/intake.ts';
import { runIdFor } from '../../../lib/onboarding/run-id.ts';

const problems = (body: Record<string, unknown>): { path?: string; message: string }[] => {
  try {
    normaliseIntake(body);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return (error as InvalidInput).details ?? [];
  }
  throw new Error('expected InvalidInput');
};

describe('the onboarding form', () => {
  it('accepts every alias of the contract', () => {
    const intake = normaliseIntake({
      email: ' Ann@Acme.EXAMPLE ',
      company_name: 'Acme',
      website: 'www.acme.example/about',
      phone_number: '+1 555 0100',
      city_state: 'Austin, TX',
      time_zone: 'America/Chicago',
      plan: 'Pro',
      metadata: { source: 'portal', tags: ['a', 'b'] },
    });
    expect(intake).toEqual({
      email: 'ann@acme.example',
      companyName: 'Acme',
      companyUrl: 'https://www.acme.example/about',
      companyDomain: 'acme.example',
      phone: '+1 555 0100',
      location: 'Austin, TX',
      timezone: 'America/Chicago',
      plan: 'pro',
      metadata: { source: 'portal', tags: ['a', 'b'] },
    });
    for (const alias of ['companyName', 'company', 'businessName']) expect(normaliseIntake({ email: 'a@b.co', [alias]: 'X' }).companyName).toBe('X');
    for (const alias of ['companyUrl', 'company_url', 'domain']) expect(normaliseIntake({ email: 'a@b.co', company: 'X', [alias]: 'x.io' }).companyDomain).toBe('x.io');
  });

  it('requires a company name, naming its aliases', () => {
    expect(problems({ email: 'a@b.co' })).toEqual([{ path: '/body/companyName', message: 'is required (or one of company_name, company, businessName)' }]);
    expect(problems({ email: 'a@b.co', company: '   ' })[0]!.path).toBe('/body/companyName');
  });

  it('refuses two different values for one field', () => {
    expect(problems({ email: 'a@b.co', companyName: 'A', company: 'B' })[0]!.path).toBe('/body/company');
    expect(normaliseIntake({ email: 'a@b.co', companyName: 'A', company: ' A ' }).companyName).toBe('A');
  });

  it.each([
    ['https://example.xn--p1ai', 'https://example.xn--p1ai/', 'example.xn--p1ai'],
    ['https://пример.рф', 'https://xn--e1afmkfd.xn--p1ai/', 'xn--e1afmkfd.xn--p1ai'],
    ['www.bücher.de/shop', 'https://www.xn--bcher-kva.de/shop', 'xn--bcher-kva.de'],
    ['https://a-1.b2.example.com', 'https://a-1.b2.example.com/', 'a-1.b2.example.com'],
  ])('accepts the international or unusual domain %s, as the punycode new URL gives', (website, href, domain) => {
    expect(normaliseIntake({ email: 'a@b.co', company: 'X', website })).toMatchObject({ companyUrl: href, companyDomain: domain });
  });

  it.each([
    'javascript:alert(1)',
    'ftp://x.io',
    'localhost',
    'https://user:pw@x.io',
    'not a url',
    'http://10.0.0.1',
    'https://-acme.com',
    'https://acme-.com',
    'https://acme..com',
    'https://acme.c0m',
    'https://acme.xn--',
    `https://${'a'.repeat(64)}.com`,
  ])('refuses the website %s', (url) => {
    expect(problems({ email: 'a@b.co', company: 'X', website: url })[0]!.path).toBe('/body/companyUrl');
  });

  it.each(['+01:00', 'Mars/Olympus', 'EST5EDT; drop', 'europe berlin'])('refuses the time zone %s', (zone) => {
    expect(problems({ email: 'a@b.co', company: 'X', timezone: zone })[0]!.path).toBe('/body/timezone');
  });

  it('accepts IANA names, aliases included', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta']) {
      expect(normaliseIntake({ email: 'a@b.co', company: 'X', timezone: zone }).timezone).toBe(zone);
    }
  });

  it('reports every problem at once', () => {
    expect(problems({ email: 'a@b.co', website: 'nope', timezone: 'nope' })).toHaveLength(3);
  });

  it('maps the same submission to the same run, and a changed one to another', () => {
    const a = normaliseIntake({ email: 'a@b.co', company: 'X', metadata: { b: 1, a: 2 } });
    const b = normaliseIntake({ email: 'A@B.CO', companyName: 'X', metadata: { a: 2, b: 1 } });
    expect(runIdFor('acct', a)).toBe(runIdFor('acct', b));
    expect(runIdFor('acct', a)).not.toBe(runIdFor('acct', normaliseIntake({ email: 'a@b.co', company: 'Y' })));
    expect(runIdFor('acct', a)).toMatch(/^acct-[0-9a-f]{16}$/);
  });

  it('refuses metadata heavier than its bound, naming the field; takes it up to the bound', () => {
    const weighing = (bytes: number) => {
      const metadata: Record<string, string> = {};
      for (let i = 0; JSON.stringify(metadata).length < bytes - 2100; i++) metadata[`k${i}`] = 'x'.repeat(1900);
      const sofar = JSON.stringify(metadata).length;
      metadata.last = 'y'.repeat(bytes - sofar - '"last":"",'.length);
      expect(JSON.stringify(metadata).length).toBe(bytes);
      return metadata;
    };
    expect(normaliseIntake({ email: 'a@b.co', company: 'X', metadata: weighing(METADATA_MAX_BYTES) }).metadata).toBeDefined();
    expect(problems({ email: 'a@b.co', company: 'X', metadata: weighing(METADATA_MAX_BYTES + 1) })).toEqual([
      { path: '/body/metadata', message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` },
    ]);
  });

  it('keeps every accepted record far below the data store item limit (400 KB)', () => {
    expect(METADATA_MAX_BYTES).toBeLessThanOrEqual(400 * 1024 / 10);
  });
});
