// A company's website as the service takes it, wherever one is given (the
// onboarding form, a crawler refresh): an http(s) address of a public-looking
// host name, which also keeps the keys built from it (the crawler's
// "site#<origin>") within DynamoDB's limits.

/**
 * "acme.com", "www.acme.com/about" or "https://acme.com" → a URL; anything else → undefined.
 * International names are kept as new URL gives them, in punycode (https://пример.рф → https://xn--e1afmkfd.xn--p1ai/).
 */
export function websiteOf(raw: string): URL | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !isDomainName(url.hostname) || url.username || url.password) return undefined;
    return url;
  } catch {
    return undefined;
  }
}

// A label is 1–63 letters, digits or hyphens, neither starting nor ending with a hyphen (RFC 1123);
// the top-level one is letters, or an IDN's punycode (xn--p1ai is .рф).
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
const TOP_LEVEL = /^([a-z]{2,63}|xn--[a-z0-9-]{1,59}(?<!-))$/i;

/** A public-looking host name: at least two labels, 253 characters at most; no IP address, no single-label name. */
function isDomainName(hostname: string): boolean {
  const labels = hostname.split('.');
  return hostname.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && TOP_LEVEL.test(labels.at(-1)!);
}
