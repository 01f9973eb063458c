// The local console (the emulator host's `/`): what it lists, for which
// account, and that recorded text (attacker-controlled) never becomes markup.
import { afterEach, describe, expect, it } from 'vitest';
import { accountFinder, accountLabel, consoleMain, consolePage, linksOf, type ConsoleData } from '../../../local/emulators/console.ts';
import { startEmulatorHost, type EmulatorHost } from '../../../local/emulators/host.ts';
import { resendEmulator } from '../../../local/emulators/resend.ts';
import type { ServiceView } from '../../../local/service-view.ts';

const EVIL = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`;
const bakery = { id: 'acc-bakery-0001', name: 'Springfield Bakery', slug: 'springfield-bakery', emails: ['owner@bakery.example'], domain: 'bakery.example' };
const other = { id: 'acc-other-0002', name: 'Globex', slug: 'globex', emails: ['hank@globex.example'], stripeCustomer: 'cus_globex' };
// Made at signup, with no company name yet: known by its contact's address.
const unnamed = { id: 'acc-unnamed-0003', contactEmail: 'ann@customer.example', emails: ['ann@customer.example', 'zed@customer.example'], stripeCustomer: 'cus_ann' };
const service: ServiceView = {
  accounts: [bakery, other, unnamed],
  deliveries: [
    { key: `booking#${bakery.id}#calendly#invitee.created|x`, source: 'calendly', accountId: bakery.id, receivedAt: '2026-03-01T10:00:00Z', outcome: 'queued' },
    { key: `stripe#evt_${EVIL}`, source: 'stripe', accountId: other.id, receivedAt: '2026-03-01T11:00:00Z', outcome: EVIL },
  ],
};

function data(overrides: Partial<ConsoleData> = {}): ConsoleData {
  return {
    vendors: [{ vendor: 'resend', prefixes: ['/resend'], differences: [EVIL] }],
    records: {
      emails: [
        {
          id: 'm2',
          from: 'Agency <hello@agency.example>',
          to: ['owner@bakery.example'],
          subject: `Welcome ${EVIL}`,
          html: `<p>Hi</p><a href="https://portal.example/start?a=1&amp;b=2">Start</a>${EVIL}`,
          text: 'Start here: https://portal.example/start?a=1&b=2',
          tags: [{ name: 'kind', value: 'welcome' }],
          idempotency_key: `onboarding-${bakery.id}-welcome`,
          created_at: '2026-03-01T12:00:00Z',
        },
        { id: 'm1', from: 'a@agency.example', to: ['x@nowhere.example'], subject: 'Older', text: 'javascript:alert(1)', created_at: '2026-03-01T09:00:00Z' },
      ],
      'auth-emails': [{ id: 'a1', to: 'hank@globex.example', kind: 'recovery', subject: 'Reset Your Password', link: 'http://localhost:10001/auth/v1/verify?token=t', otp: '123456', created_at: '2026-03-01T11:30:00Z' }],
      tasks: [
        { id: 'f1', name: `Springfield Bakery (springfield-bakery)`, archived: false, lists: [{ id: 'l1', name: 'Onboarding', tasks: [{ id: 't1', name: `Kick-off ${EVIL}`, status: { status: 'to do' }, url: 'javascript:alert(3)', date_created: '1' }] }] },
      ],
      storage: [
        { path: '/Clients/springfield-bakery', type: 'folder', sharedLink: 'https://www.dropbox.com/scl/fo/local/springfield-bakery' },
        { path: '/Clients/springfield-bakery/Brand', type: 'folder' },
      ],
      crm: [{ id: 'lead_1', name: 'Globex', display_name: `Globex ${EVIL}`, date_created: '2026-03-01T08:00:00Z', contacts: [{ name: 'Hank', emails: [{ email: 'hank@globex.example' }] }] }],
      chat: [
        { channel: 'C1', text: 'New client onboarded: Springfield Bakery', ts: '1772360000.000001', via: 'web-api' },
        { channel: 'C1', text: EVIL, ts: '1772370000.000002', via: 'web-api' },
      ],
      payments: [{ id: 'cs_1', status: 'complete', payment_status: 'paid', amount_total: 4900, currency: 'usd', customer: 'cus_globex', created: 1772360000, metadata: {}, deliveries: [{}] }],
      'payment-events': [{ event: { id: 'evt_1', type: 'checkout.session.completed' }, delivered_at: '2026-03-01T11:00:00Z', status: 200, answer: { received: true } }],
      'auth-users': [{ email: EVIL }],
    },
    faults: [{ vendor: 'clickup', mode: 'fail', remaining: 'always', match: EVIL, retryAfterSeconds: 1 }],
    latency: {},
    service,
    ...overrides,
  };
}

describe('the local console', () => {
  it('never turns recorded text into markup', () => {
    const page = consolePage(data());
    // No recorded value reaches the page as a tag or an attribute; the only script is the page's own.
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(page.match(/<script>/g)).toHaveLength(1);
    expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    // An e-mail's HTML is shown only in a sandboxed frame that may not run scripts.
    const frames = [...page.matchAll(/<iframe ([^>]*)>/g)].map((m) => m[1]!);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatch(/sandbox="allow-popups allow-popups-to-escape-sandbox"/);
    expect(frames[0]).not.toMatch(/allow-scripts|allow-same-origin/);
    expect(frames[0]).toContain('srcdoc="&#60;base target=&#34;_blank&#34;&#62;&#60;p&#62;Hi');
    // Only http(s) addresses become links.
    expect(page).not.toMatch(/href="javascript:/i);
  });

  it('shows a mailbox, newest first, with each e-mail’s headers, parts and links', () => {
    const main = consoleMain(data());
    const order = ['Welcome', 'Reset Your Password', 'Older'].map((subject) => main.indexOf(`<b>${subject}`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(main).toMatch(/<details class="mail" open id="mail-m2">/);
    expect(main).toContain('<th>From</th><td>Agency &#60;hello@agency.example&#62;</td>');
    expect(main).toContain('<th>Tags</th><td>kind=welcome</td>');
    expect(main).toContain('<a href="https://portal.example/start?a=1&#38;b=2" target="_blank" rel="noopener noreferrer">');
    expect(main).toContain('<h4>Text</h4><pre>Start here: https://portal.example/start?a=1&#38;b=2</pre>');
    expect(main).toContain('<a href="http://localhost:10001/auth/v1/verify?token=t"');
  });

  it('lists tasks, folders and shared links, leads, chat posts, payments and webhook deliveries, each with its account', () => {
    const main = consoleMain(data());
    const section = (id: string) => main.slice(main.indexOf(`<section id="${id}">`), main.indexOf('</section>', main.indexOf(`<section id="${id}">`)));
    expect(section('tasks')).toContain('Tasks (1 in 1 folders)');
    expect(section('tasks')).toContain('Springfield Bakery <small>acc-bake');
    expect(section('storage')).toContain('<a href="https://www.dropbox.com/scl/fo/local/springfield-bakery"');
    expect(section('storage')).toContain('Springfield Bakery <small>');
    expect(section('leads')).toContain('Globex <small>acc-othe');
    expect(section('leads')).toContain('<td class="wrap">Hank hank@globex.example</td>');
    expect(section('chat')).toContain('Springfield Bakery <small>');
    expect(section('chat').indexOf('&#60;script')).toBeLessThan(section('chat').indexOf('New client onboarded'));
    expect(section('payments')).toContain('49.00 USD');
    expect(section('payments')).toContain('Globex <small>');
    expect(section('deliveries')).toContain('checkout.session.completed');
    expect(section('deliveries')).toContain('Springfield Bakery <small>');
    expect(section('mailbox')).toContain('Springfield Bakery <small>');
    expect(section('faults')).toContain('until cleared');
    expect(section('faults')).toContain('id="clear-faults"');
  });

  it('says when the service’s tables could not be read, and lists the rest anyway', () => {
    const main = consoleMain(data({ service: { error: 'connect ECONNREFUSED' } }));
    expect(main).toContain('could not be read: connect ECONNREFUSED');
    expect(main).toContain('<span class="acct none">no account</span>');
  });

  it('names every account as a person knows it: its company name, else its contact address, else its slug, the id last', () => {
    expect(accountLabel(bakery)).toBe('Springfield Bakery');
    expect(accountLabel(unnamed)).toBe('ann@customer.example');
    expect(accountLabel({ id: 'acc-4', emails: ['member@x.example'] })).toBe('member@x.example');
    expect(accountLabel({ id: 'acc-5', slug: 'acme', emails: [] })).toBe('acme');
    expect(accountLabel({ id: 'acc-6', emails: [] })).toBe('acc-6');

    const main = consoleMain(
      data({
        records: {
          payments: [{ id: 'cs_test_unnamed', status: 'complete', payment_status: 'paid', amount_total: 9900, currency: 'usd', customer: 'cus_ann', created: 1772360000, metadata: { account_id: unnamed.id }, subscription: 'sub_ann' }],
          'payment-events': [
            { event: { id: 'evt_a', type: 'checkout.session.completed' }, session: 'cs_test_unnamed', delivered_at: '2026-03-01T11:00:00Z', status: 200, answer: {} },
            { event: { id: 'evt_b', type: 'invoice.paid' }, subscription: 'sub_ann', delivered_at: '2026-03-01T11:01:00Z', status: 200, answer: {} },
            { event: { id: 'evt_c', type: 'invoice.paid' }, subscription: 'sub_unknown', delivered_at: '2026-03-01T11:02:00Z', status: 200, answer: {} },
          ],
          emails: [{ id: 'n1', from: 'a@agency.example', to: ['team@agency.example'], subject: 'New client: Springfield Bakery', text: 'x', created_at: '2026-03-01T09:00:00Z' }],
        },
      }),
    );
    const section = (id: string) => main.slice(main.indexOf(`<section id="${id}">`), main.indexOf('</section>', main.indexOf(`<section id="${id}">`)));
    // A long address may break after its @.
    expect(section('payments')).toContain('ann@<wbr>customer.example <small>acc-unna</small>');
    expect(section('payments')).toContain('title="account acc-unnamed-0003 · contact ann@customer.example"');
    expect(section('deliveries').match(/ann@<wbr>customer.example <small>/g)).toHaveLength(2);
    expect(section('deliveries')).toContain('<span class="acct none">no checkout session</span>');
    // The team's notice is about an account its subject names.
    expect(section('mailbox')).toContain('Springfield Bakery <small>acc-bake');
  });

  it('finds an account by id, customer, slug, address or name', () => {
    const find = accountFinder(service.accounts);
    expect(find({ id: other.id })?.id).toBe(other.id);
    expect(find({ customer: 'cus_globex' })?.id).toBe(other.id);
    expect(find({ slug: 'springfield-bakery' })?.id).toBe(bakery.id);
    expect(find({ emails: ['OWNER@bakery.example'] })?.id).toBe(bakery.id);
    expect(find({ text: 'Call with Jo: Kick-off (Springfield Bakery)' })?.id).toBe(bakery.id);
    expect(find({ text: `onboarding-${unnamed.id}-welcome` })?.id).toBe(unnamed.id);
    expect(find({ text: 'nothing known' })).toBeUndefined();
    expect(linksOf('<a href="javascript:x">x</a><a href=\'http://a.example/\'>a</a>', 'see https://b.example/x.')).toEqual(['http://a.example/', 'https://b.example/x.']);
  });
});

describe('the console served by the host', () => {
  let host: EmulatorHost | undefined;
  afterEach(async () => host?.stop());

  it('renders a sent e-mail, refreshes its main part, and clears faults from its button’s request', async () => {
    host = await startEmulatorHost({ port: 0, service: async () => service });
    host.register(resendEmulator());
    const sent = await fetch(`${host.url}/resend/emails`, {
      method: 'POST',
      headers: { authorization: 'Bearer re_local_emulator_key', 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'a@agency.example', to: 'owner@bakery.example', subject: `Hello ${EVIL}`, html: `<b>Hi</b>${EVIL}` }),
    });
    expect(sent.status).toBe(200);
    await fetch(`${host.url}/_local/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor: 'resend', mode: 'fail', count: 'always' }) });

    const page = await fetch(`${host.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Hello &#60;script&#62;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('Springfield Bakery <small>');
    expect(html).toContain('Active faults (1)');
    const part = await (await fetch(`${host.url}/?part=main`)).text();
    expect(part.startsWith('<section id="faults">')).toBe(true);
    expect(part).not.toContain('<html');

    await fetch(`${host.url}/_local/faults`, { method: 'DELETE' });
    expect(await (await fetch(`${host.url}/?part=main`)).text()).toContain('Active faults (0)');
    expect(await (await fetch(`${host.url}/_local/emails`)).json()).toHaveLength(1);
  });
});
