// Fetches pages of a client's website, an address someone typed in, so it must
// not become a way to read the instance metadata or a private network (SSRF).
// Unless private networks are allowed (a local stage, for a loopback fixture):
// only http and https on their default ports; every address a host resolves to
// must be public, and the connection goes to the checked address itself (no DNS
// rebinding); redirects are followed by hand, each hop checked, at most
// `maxRedirects`; every request has a timeout, and bodies are cut at `maxBytes`,
// after decompression too.
import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Writable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { SiteError } from './site-errors.ts';

export interface FetchPolicy {
  allowPrivateNetworks: boolean;
  /** Per request (each redirect hop has its own). */
  timeoutMs: number;
  /** Largest body accepted, as transferred and as decoded. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/**
 * How host names become connections. Production uses the system resolver and
 * connects to the checked address; tests substitute both, to show the checks
 * with private networks disallowed against a server that is, in fact, local.
 */
export interface Network {
  resolve(hostname: string): Promise<string[]>;
  /** Where to open the TCP connection for a checked address. */
  connectTo?(address: string, port: number): { host: string; port: number };
}

export interface FetchedPage {
  /** The address asked for. */
  url: string;
  /** The address that answered, after redirects. */
  finalUrl: string;
  status: number;
  contentType: string;
  body: string;
  /** Body bytes as transferred. */
  bytes: number;
  ttfbMs: number;
  totalMs: number;
  redirects: number;
}

export interface SiteFetcher {
  fetch(url: string): Promise<FetchedPage>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** True for a globally routable unicast address; false for private, loopback, link-local, metadata, reserved, ... */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  // An IPv6 address that carries an IPv4 address reaches that IPv4 address (through
  // a translator, a tunnel or the host's own stack), so it is judged as that one.
  const carried = carriedIPv4(v6);
  if (carried) return carried.every((v4) => v4.range() === 'unicast');
  // Otherwise only global unicast (2000::/3) that is not special-purpose.
  return (v6.parts[0]! & 0xe000) === 0x2000 && v6.range() === 'unicast';
}

const v4 = (b: number[]) => new ipaddr.IPv4(b);
const inPrefix = (address: ipaddr.IPv6, prefix: string, bits: number) => address.match(ipaddr.IPv6.parse(prefix), bits);

/**
 * The IPv4 addresses an IPv6 address carries, or undefined if it carries none.
 * Where the position of the IPv4 address cannot be known, every reading is given.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const b = address.toByteArray();
  const last32 = () => [v4(b.slice(12, 16))];
  // ::ffff:0:0/96 IPv4-mapped (RFC 4291) and ::ffff:0:0:0/96 IPv4-translated (RFC 6145).
  if (inPrefix(address, '::ffff:0:0', 96) || inPrefix(address, '::ffff:0:0:0', 96)) return last32();
  // ::/96 IPv4-compatible (RFC 4291, deprecated), which the URL parser writes as ::7f00:1;
  // :: and ::1 fall here too and are judged as 0.0.0.0 and 0.0.0.1, neither public.
  if (inPrefix(address, '::', 96)) return last32();
  // 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052).
  if (inPrefix(address, '64:ff9b::', 96)) return last32();
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): the operator picks a prefix of /48 to /96
  // inside it, and RFC 6052 section 2.2 places the IPv4 address by that length (skipping
  // bits 64-71); every possible reading must be public.
  if (inPrefix(address, '64:ff9b:1::', 48)) {
    return [
      v4([b[6]!, b[7]!, b[9]!, b[10]!]), // /48
      v4([b[7]!, b[9]!, b[10]!, b[11]!]), // /56
      v4(b.slice(9, 13)), // /64
      v4(b.slice(12, 16)), // /96
    ];
  }
  // 2002::/16, 6to4 (RFC 3056): the IPv4 address follows the prefix.
  if (inPrefix(address, '2002::', 16)) return [v4(b.slice(2, 6))];
  // 2001::/32, Teredo (RFC 4380): the server's IPv4 address, then the client's with every bit inverted.
  if (inPrefix(address, '2001::', 32)) return [v4(b.slice(4, 8)), v4(b.slice(12, 16).map((x) => x ^ 0xff))];
  return undefined;
}

/** Every address a host name has; rejects with the resolver's error code (ENOTFOUND, EAI_AGAIN, ...), as node:dns does. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The operating system's resolver (getaddrinfo), every address in the order it gives them. */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

// The resolver could not answer now (no DNS server reachable, a timeout, a server failure):
// the name may well exist, so the fetch may work later. ENOTFOUND and the rest mean it does not.
const TEMPORARY_DNS_FAILURES = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED']);

/** A network that resolves names with `resolver` and connects to the address it checked. */
export function resolverNetwork(resolver: Resolver): Network {
  return {
    async resolve(hostname) {
      // RFC 6761: "localhost" and every name under it are the loopback interface, whatever DNS says.
      if (hostname === 'localhost' || hostname.endsWith('.localhost')) return ['127.0.0.1', '::1'];
      try {
        return await resolver(hostname);
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        throw new SiteError('unresolvable', `${hostname} could not be resolved`, TEMPORARY_DNS_FAILURES.has(code));
      }
    },
  };
}

export const systemNetwork: Network = resolverNetwork(systemResolver);

export function siteFetcher(policy: FetchPolicy, network: Network): SiteFetcher {
  /** The address to connect to for this URL, once every address of its host has passed the check. */
  async function checkedAddress(url: URL): Promise<string> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SiteError('unsupported_scheme', `Only http and https addresses can be fetched, not ${url.protocol}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    const addresses = isIP(host) ? [host] : await network.resolve(host);
    if (addresses.length === 0) throw new SiteError('unresolvable', `${host} has no address`);
    if (!policy.allowPrivateNetworks && !addresses.every(isPublicAddress)) {
      throw new SiteError('blocked_address', `${host} is not a public address, so it is not fetched`);
    }
    // URL leaves the port empty when it is the scheme's default (80 for http, 443 for https).
    if (!policy.allowPrivateNetworks && url.port !== '') {
      throw new SiteError('blocked_port', `${url.hostname} is asked on port ${url.port}: only the default ports of http and https are fetched`);
    }
    // IPv4 first: a Lambda outside a dual-stack VPC has no IPv6 route.
    return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
  }

  async function fetchPage(address: string): Promise<FetchedPage> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new SiteError('unsupported_scheme', 'Not a valid address');
    }
    for (let hop = 0; ; hop++) {
      const ip = await checkedAddress(url);
      const response = await request(url, ip);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (hop >= policy.maxRedirects) throw new SiteError('too_many_redirects', `${url.hostname} redirected more than ${policy.maxRedirects} times`);
        try {
          url = new URL(location, url);
        } catch {
          throw new SiteError('unsupported_scheme', `${url.hostname} redirected to an invalid address`);
        }
        continue;
      }
      const ttfbMs = performance.now() - started;
      const { raw, decoded } = await readBody(response, url);
      const contentType = String(response.headers['content-type'] ?? '');
      return {
        url: address,
        finalUrl: url.href,
        status: response.statusCode ?? 0,
        contentType,
        body: decodeText(decoded, contentType),
        bytes: raw,
        ttfbMs: Math.round(ttfbMs),
        totalMs: Math.round(performance.now() - started),
        redirects: hop,
      };
    }
  }

  function request(url: URL, ip: string): Promise<IncomingMessage> {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const target = network.connectTo?.(ip, port) ?? { host: ip, port };
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request({
        host: target.host,
        port: target.port,
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        // The certificate is checked against the host name, not the address we connect to.
        servername: isIP(hostname) ? undefined : hostname,
        // A fresh connection per request: a pooled socket must never carry a request to another host.
        agent: false,
        headers: {
          host: url.host,
          'user-agent': policy.userAgent,
          accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      let response: IncomingMessage | undefined;
      // One deadline for the whole exchange, body included.
      const timer = setTimeout(() => {
        const timedOut = new SiteError('timed_out', `${url.hostname} did not answer in time`, true);
        if (response) response.destroy(timedOut);
        else req.destroy(timedOut);
      }, policy.timeoutMs);
      req.once('response', (res) => {
        response = res;
        res.once('close', () => clearTimeout(timer));
        resolve(res);
      });
      req.once('error', (error: Error & { code?: string }) => {
        clearTimeout(timer);
        if (error instanceof SiteError) return reject(error);
        if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(error.code ?? '')) {
          return reject(new SiteError('unreachable', `${url.hostname} has no valid certificate`));
        }
        reject(new SiteError('unreachable', `${url.hostname} could not be reached`, true));
      });
      req.end();
    });
  }

  async function readBody(res: IncomingMessage, url: URL): Promise<{ raw: number; decoded: Buffer }> {
    const chunks: Buffer[] = [];
    let raw = 0;
    let decodedSize = 0;
    const tooLarge = () => new SiteError('too_large', `A page of ${url.hostname} is larger than ${policy.maxBytes} bytes`);
    res.on('data', (chunk: Buffer) => {
      raw += chunk.length;
      if (raw > policy.maxBytes) res.destroy(tooLarge());
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        decodedSize += chunk.length;
        if (decodedSize > policy.maxBytes) return done(tooLarge());
        chunks.push(chunk);
        done();
      },
    });
    const decoder = decompressor(String(res.headers['content-encoding'] ?? '').trim().toLowerCase());
    try {
      await (decoder ? pipeline(res, decoder, sink) : pipeline(res, sink));
    } catch (error) {
      if (error instanceof SiteError) throw error;
      throw new SiteError('unreachable', `${url.hostname} broke off the answer`, true);
    }
    return { raw, decoded: Buffer.concat(chunks) };
  }

  return { fetch: fetchPage };
}

function decompressor(encoding: string): Transform | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  if (encoding === 'deflate') return zlib.createInflate();
  if (encoding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

/** The body as text, in the charset the header (or else the page's own <meta charset>) names; UTF-8 otherwise. */
function decodeText(body: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
