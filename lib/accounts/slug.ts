// Portal slugs: the client's address on the portal, {portal}/<slug>.
// Lower case ASCII letters, digits and single hyphens; never one of the
// portal's own routes; at most 48 characters.

/** Paths the portal and dashboard use themselves; a client slug must never shadow them. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'onboarding', 'forgot-password', 'reset-password', 'verify', 'verify-email', 'signup', 'sign-up', 'login', 'logout',
  'signin', 'sign-in', 'dashboard', 'api', 'admin', 'account', 'accounts', 'settings', 'billing', 'checkout', 'auth',
  'health', 'healthz', 'status', 'static', 'assets', 'public', 'www', 'app', 'portal', 'help', 'support', 'docs',
  'webhooks', 'new', 'client', 'clients', 'null', 'undefined', 'favicon-ico', 'robots-txt', 'sitemap-xml',
]);

const MAX_LENGTH = 48;
const FALLBACK = 'company';

/** The base slug of a company name: "Café Ünïcorn & Co." → "cafe-unicorn-co". */
export function slugify(companyName: string): string {
  const ascii = companyName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // combining marks left by NFKD: é → e
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/&/g, ' and ')
    .toLowerCase();
  const slug = ascii
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_LENGTH)
    .replace(/-+$/g, '');
  return slug || FALLBACK;
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= MAX_LENGTH && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) && !RESERVED_SLUGS.has(slug);
}

/**
 * The slugs to try for a base, in order: the base itself (unless reserved),
 * then base-2 … base-9, then base-<random> for as long as needed. Numbered
 * suffixes read well; random ones keep many concurrent claims of one name fast.
 */
export function* slugCandidates(base: string, random: () => string = randomSuffix): Generator<string> {
  if (isValidSlug(base)) yield base;
  const stem = (n: string) => `${base.slice(0, MAX_LENGTH - n.length - 1).replace(/-+$/, '')}-${n}`;
  for (let n = 2; n <= 9; n++) yield stem(String(n));
  for (;;) yield stem(random());
}

function randomSuffix(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
