import { describe, expect, it } from 'vitest';
import { isValidSlug, RESERVED_SLUGS, slugCandidates, slugify } from '../../../lib/accounts/slug.ts';

describe('slug rules', () => {
  it.each([
    ['Acme', 'acme'],
    ['Acme Corp.', 'acme-corp'],
    ['  Café Ünïcorn & Co.  ', 'cafe-unicorn-and-co'],
    ['Straße Ærø Łódź', 'strasse-aero-lodz'],
    ['--Hello__World--', 'hello-world'],
    ['日本企業', 'company'],
    ['', 'company'],
    ['A'.repeat(100), 'a'.repeat(48)],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
    expect(isValidSlug(slug)).toBe(true);
  });

  it('never yields a route of the portal itself', () => {
    for (const route of ['onboarding', 'forgot-password', 'reset-password', 'verify', 'signup', 'dashboard', 'api']) {
      expect(RESERVED_SLUGS.has(route)).toBe(true);
      const first = slugCandidates(slugify(route)).next().value;
      expect(first).toBe(`${route}-2`);
    }
  });

  it('numbers, then randomises, and always stays valid', () => {
    const gen = slugCandidates('acme', () => 'x7k2p');
    const first = Array.from({ length: 10 }, () => gen.next().value);
    expect(first).toEqual(['acme', 'acme-2', 'acme-3', 'acme-4', 'acme-5', 'acme-6', 'acme-7', 'acme-8', 'acme-9', 'acme-x7k2p']);
    const long = slugCandidates('b'.repeat(48));
    for (let i = 0; i < 12; i++) expect(isValidSlug(long.next().value!)).toBe(true);
  });
});
