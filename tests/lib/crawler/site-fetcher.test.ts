// The fetcher as a deployed stage builds it (private networks disallowed),
// and as the local stage does. The "public" host below is a name our test
// resolver gives a public address, and the test network connects that one
// address to the loopback fixture server: that is how a redirect from a
// public site to a private address can be shown without the internet.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, resolverNetwork, siteFetcher, type FetchPolicy, type Network } from '../../../lib/crawler/site-fetcher.ts';
import { crawlSettings } from '../../../lib/config.ts';
import { html, useSite } from '../../support/site.ts';
import { dnsError, stubNetwork, stubResolver } from '../../support/stub-resolver.ts';

const PUBLIC_IP = '93.184.215.14';
const site = useSite({
  '/': html('<title>Home</title><p>Hello</p>'),
  '/to-metadata': { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
  '/to-internal-name': { status: 301, headers: { location: 'http://intranet.corp.example/' } },
  '/to-localhost': (_req, s) => ({ status: 307, headers: { location: `http://localhost:${s.port}/` } }),
  '/to-mapped': { status: 302, headers: { location: 'http://[::ffff:a9fe:a9fe]/' } },
  '/to-file': { status: 302, headers: { location: 'file:///etc/passwd' } },
  '/to-public': { status: 302, headers: { location: 'http://www.public-site.example/' } },
  '/to-ssh': { status: 302, headers: { location: 'http://www.public-site.example:22/' } },
  '/loop': { status: 302, headers: { location: '/loop' } },
  '/big': { body: 'x'.repeat(4096) },
  '/bomb': { headers: { 'content-encoding': 'gzip', 'content-type': 'text/html' }, body: gzipSync('a'.repeat(1_000_000)) },
  '/gzipped': { headers: { 'content-encoding': 'gzip', 'content-type': 'text/html; charset=utf-8' }, body: gzipSync('<p>Grüße aus dem Ofen</p>') },
  '/latin1': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: Buffer.from('<p>Caf\xe9</p>', 'latin1') },
  '/meta-charset': { headers: { 'content-type': 'text/html' }, body: Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), Buffer.from([0x93, 0x71, 0x94]), Buffer.from('</p>')]) },
  '/slow': { hang: true },
});

const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
  allowPrivateNetworks: false,
  timeoutMs: 2000,
  maxBytes: 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'test',
  ...overrides,
});

/** DNS as a deployed stage might see it (a stub: no test asks a real resolver), with the one public host wired to the fixture server. */
const testNetwork = (): Network & { resolved: string[] } => {
  const resolver = stubResolver({
    'www.public-site.example': [PUBLIC_IP],
    'intranet.corp.example': ['10.1.2.3'],
    'half-private.example': [PUBLIC_IP, '192.168.1.20'],
  });
  return {
    ...resolverNetwork(resolver),
    resolved: resolver.asked,
    connectTo: (address, port) => (address === PUBLIC_IP ? { host: '127.0.0.1', port: site.port } : { host: address, port }),
  };
};

const deployed = () => siteFetcher(policy(), testNetwork());
const refusal = (promise: Promise<unknown>) => promise.then(() => 'fetched', (e: { name?: string; code?: string }) => `${e.name}:${e.code}`);

describe('the fetcher of a deployed stage (private networks disallowed)', () => {
  it('fetches a public site through the test network (the path the refusals below take)', async () => {
    const page = await deployed().fetch('http://www.public-site.example/');
    expect(page).toMatchObject({ status: 200, finalUrl: 'http://www.public-site.example/', redirects: 0 });
    expect(page.body).toContain('Hello');
  });

  it('refuses the instance metadata address', async () => {
    expect(await refusal(deployed().fetch('http://169.254.169.254/latest/meta-data/iam/'))).toBe('SiteRefused:blocked_address');
  });

  it('refuses localhost, by name and by every spelling of a loopback address', async () => {
    for (const url of ['http://localhost/', `http://localhost:${site.port}/`, 'http://app.localhost/', 'http://127.0.0.1/', 'http://[::1]/', 'http://0x7f000001/', 'http://2130706433/', 'http://0.0.0.0/']) {
      expect(await refusal(deployed().fetch(url)), url).toBe('SiteRefused:blocked_address');
    }
  });

  it('refuses names that resolve to a private address, and names with any private address among several', async () => {
    expect(await refusal(deployed().fetch('http://intranet.corp.example/'))).toBe('SiteRefused:blocked_address');
    expect(await refusal(deployed().fetch('http://half-private.example/'))).toBe('SiteRefused:blocked_address');
  });

  it('refuses a redirect to a private address, checking every hop', async () => {
    const network = testNetwork();
    const fetcher = siteFetcher(policy(), network);
    for (const path of ['/to-metadata', '/to-internal-name', '/to-localhost', '/to-mapped']) {
      expect(await refusal(fetcher.fetch(`http://www.public-site.example${path}`)), path).toBe('SiteRefused:blocked_address');
    }
    expect(network.resolved).toContain('intranet.corp.example');
    // The first hop was fetched; nothing behind the redirects was.
    expect(site.hits).toEqual(expect.arrayContaining(['/to-metadata', '/to-internal-name', '/to-localhost', '/to-mapped']));
  });

  it('follows redirects between public hosts', async () => {
    const page = await deployed().fetch('http://www.public-site.example/to-public');
    expect(page).toMatchObject({ status: 200, finalUrl: 'http://www.public-site.example/', redirects: 1 });
  });

  it('fetches only the default ports of http and https (80, 443), also behind a redirect', async () => {
    // Tried as an attacker would: a website field naming another service of a public host (ssh, Redis, an admin port).
    for (const url of ['http://www.public-site.example:22/', 'http://www.public-site.example:6379/', 'https://www.public-site.example:8443/', 'http://www.public-site.example:443/']) {
      expect(await refusal(deployed().fetch(url)), url).toBe('SiteRefused:blocked_port');
    }
    expect(await refusal(deployed().fetch('http://www.public-site.example/to-ssh'))).toBe('SiteRefused:blocked_port');
    // The default port, spelled out, is the default port.
    expect((await deployed().fetch('http://www.public-site.example:80/')).status).toBe(200);
  });

  it('fetches only http and https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://www.public-site.example/', 'gopher://www.public-site.example/']) {
      expect(await refusal(deployed().fetch(url)), url).toBe('SiteRefused:unsupported_scheme');
    }
    expect(await refusal(deployed().fetch('http://www.public-site.example/to-file'))).toBe('SiteRefused:unsupported_scheme');
  });

  it('stops after the redirect limit', async () => {
    expect(await refusal(siteFetcher(policy({ maxRedirects: 3 }), testNetwork()).fetch('http://www.public-site.example/loop'))).toBe(
      'SiteRefused:too_many_redirects',
    );
  });

  it('cuts off bodies over the size limit, also after decompression', async () => {
    const small = siteFetcher(policy({ maxBytes: 1000 }), testNetwork());
    expect(await refusal(small.fetch('http://www.public-site.example/big'))).toBe('SiteRefused:too_large');
    const page = await siteFetcher(policy({ maxBytes: 100_000 }), testNetwork())
      .fetch('http://www.public-site.example/bomb')
      .catch((e: Error) => e);
    expect(page).toMatchObject({ name: 'SiteRefused', code: 'too_large' });
  });

  it('gives up on a site that does not answer in time, as a transient failure', async () => {
    expect(await refusal(siteFetcher(policy({ timeoutMs: 200 }), testNetwork()).fetch('http://www.public-site.example/slow'))).toBe(
      'SiteUnavailable:timed_out',
    );
  });

  it('refuses a name that does not exist, and takes a resolver that cannot answer now as transient', async () => {
    expect(await refusal(siteFetcher(policy(), stubNetwork()).fetch('http://no-such-host.invalid/'))).toBe('SiteRefused:unresolvable');
    // EAI_AGAIN: no DNS server answered (offline, overloaded); the name may exist, so a retry may work.
    const offline = stubNetwork({ 'www.public-site.example': { error: 'EAI_AGAIN' } });
    expect(await refusal(siteFetcher(policy(), offline).fetch('http://www.public-site.example/'))).toBe('SiteUnavailable:unresolvable');
  });

  it('passes on only what the resolver says, and asks it nothing for localhost', async () => {
    const resolver = stubResolver();
    const network = resolverNetwork(resolver);
    expect(await network.resolve('app.localhost')).toEqual(['127.0.0.1', '::1']);
    await expect(network.resolve('gone.example')).rejects.toMatchObject({ name: 'SiteRefused', code: 'unresolvable', message: 'gone.example could not be resolved' });
    const failing = resolverNetwork(() => Promise.reject(dnsError('ESERVFAIL', 'x.example')));
    await expect(failing.resolve('x.example')).rejects.toMatchObject({ name: 'SiteUnavailable', code: 'unresolvable' });
    expect(resolver.asked).toEqual(['gone.example']);
  });
});

describe('the fetcher of the local stage (private networks allowed)', () => {
  const local = () => siteFetcher(policy({ allowPrivateNetworks: true }), stubNetwork());

  it('reaches a fixture site on loopback, by address and by a .localhost name', async () => {
    expect((await local().fetch(`${site.origin}/`)).status).toBe(200);
    expect((await local().fetch(`http://fixture.localhost:${site.port}/`)).body).toContain('Hello');
  });

  it('decodes compressed bodies and counts the bytes as transferred', async () => {
    const page = await local().fetch(`${site.origin}/gzipped`);
    expect(page.body).toBe('<p>Grüße aus dem Ofen</p>');
    expect(page.bytes).toBe(gzipSync('<p>Grüße aus dem Ofen</p>').length);
  });

  it("decodes the charset the header names, or else the page's own meta charset", async () => {
    expect((await local().fetch(`${site.origin}/latin1`)).body).toBe('<p>Café</p>');
    expect((await local().fetch(`${site.origin}/meta-charset`)).body).toContain('<p>\u201cq\u201d</p>');
  });

  it('times the answer: first byte no later than the last', async () => {
    const page = await local().fetch(`${site.origin}/`);
    expect(page.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(page.totalMs).toBeGreaterThanOrEqual(page.ttfbMs);
  });
});

describe('public addresses', () => {
  it.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.0.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['[::1]', false],
    ['not-an-address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

// Every IPv6 form that carries an IPv4 address is judged by that IPv4 address:
// otherwise `http://[::a9fe:a9fe]/` is the metadata service under another name.
// The hosts below are written as the URL parser writes them (it turns
// `[::169.254.169.254]` into `[::a9fe:a9fe]`).
describe('IPv6 addresses that carry an IPv4 address, on a deployed stage', () => {
  // A form carrying a private IPv4, that IPv4, and the same form carrying a public one
  // (none for the local-use NAT64 prefix: see the last test).
  const forms: Array<[form: string, private_: string, carried: string, public_: string | null]> = [
    ['IPv4-mapped ::ffff:0:0/96', '::ffff:a9fe:a9fe', '169.254.169.254', '::ffff:5db8:d70e'],
    ['IPv4-translated ::ffff:0:0:0/96', '::ffff:0:7f00:1', '127.0.0.1', '::ffff:0:5db8:d70e'],
    ['IPv4-compatible ::/96 (loopback)', '::7f00:1', '127.0.0.1', '::5db8:d70e'],
    ['IPv4-compatible ::/96 (metadata)', '::a9fe:a9fe', '169.254.169.254', '::808:808'],
    ['IPv4-compatible ::/96 (private)', '::a00:1', '10.0.0.1', '::808:404'],
    ['NAT64 64:ff9b::/96', '64:ff9b::a9fe:a9fe', '169.254.169.254', '64:ff9b::5db8:d70e'],
    ['NAT64 local-use 64:ff9b:1::/48 (/96 layout)', '64:ff9b:1::a00:1', '10.0.0.1', null],
    ['NAT64 local-use 64:ff9b:1::/48 (/64 layout)', '64:ff9b:1:0:a:0:1:0', '10.0.0.1', null],
    ['6to4 2002::/16', '2002:a9fe:a9fe::1', '169.254.169.254', '2002:5db8:d70e::1'],
    // Teredo: server IPv4 in bits 32-63, client IPv4 inverted in the last 32 bits.
    ['Teredo 2001::/32', '2001:0:5db8:d70e::80ff:fffe', '127.0.0.1', '2001:0:5db8:d70e::f7f7:f7f7'],
  ];

  const deployedSettings = () => policy({ allowPrivateNetworks: crawlSettings({}).allowPrivateNetworks });

  it('the deployed default refuses private networks', () => {
    expect(crawlSettings({}).allowPrivateNetworks).toBe(false);
  });

  it.each(forms)('%s: judged by the IPv4 address it carries', (_form, privateForm, _carried, publicForm) => {
    expect(isPublicAddress(privateForm), privateForm).toBe(false);
    expect(isPublicAddress(`[${privateForm}]`), privateForm).toBe(false);
    if (publicForm) expect(isPublicAddress(publicForm), publicForm).toBe(true);
  });

  it.each(forms)('%s: refused as the host of an address', async (_form, privateForm, carried) => {
    const url = new URL(`http://[${privateForm}]/latest/meta-data/`);
    expect(url.hostname).toBe(`[${privateForm}]`); // the spelling the URL parser gives
    expect(isPublicAddress(carried)).toBe(false);
    expect(await refusal(siteFetcher(deployedSettings(), testNetwork()).fetch(url.href)), url.href).toBe('SiteRefused:blocked_address');
  });

  it.each(forms)('%s: refused when DNS answers with it', async (_form, privateForm) => {
    const network: Network = {
      resolve: async (hostname) => (hostname === 'rebound.example' ? [privateForm] : []),
      connectTo: () => ({ host: '127.0.0.1', port: site.port }),
    };
    expect(await refusal(siteFetcher(deployedSettings(), network).fetch('http://rebound.example/'))).toBe('SiteRefused:blocked_address');
  });

  it('refuses the dotted spelling too, whichever way it is written', async () => {
    for (const url of ['http://[::127.0.0.1]/', 'http://[::169.254.169.254]/', 'http://[::ffff:0:10.0.0.1]/', 'http://[64:ff9b::192.168.0.1]/']) {
      expect(await refusal(siteFetcher(deployedSettings(), testNetwork()).fetch(url)), url).toBe('SiteRefused:blocked_address');
    }
  });

  it('refuses a local-use NAT64 address even when one reading of it is public: where the IPv4 sits depends on the prefix length its operator chose', () => {
    // 64:ff9b:1::/48 (RFC 8215) is not globally reachable; read as a /96 prefix this is 93.184.215.14, read as a /48 it is 0.0.0.0.
    expect(isPublicAddress('64:ff9b:1::5db8:d70e')).toBe(false);
    expect(isPublicAddress('64:ff9b:1:0:5d:b8d7:e00:0')).toBe(false);
  });

  it('refuses a Teredo address whose server is private, whatever its client', () => {
    expect(isPublicAddress('2001:0:a00:1::f7f7:f7f7')).toBe(false);
  });

  it('refuses IPv6 outside global unicast (2000::/3) that carries no IPv4 address', () => {
    for (const address of ['::1:0:0:1', '100::1', '4000::1', 'fec0::1', '2001:db8::1']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});
