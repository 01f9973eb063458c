// The local console: the emulator host's `/`, for a person. A mailbox (each
// e-mail's HTML in a sandboxed frame, its text part, headers and links, as
// Mailpit shows them), then what the other vendors were asked to do, each
// record with the account it was for, newest first, and the active faults
// with a button to clear them. It refreshes itself every few seconds.
//
// Everything recorded is text that callers (and, through the service, anyone
// who fills in a form) chose: every value goes through esc(), an e-mail's HTML
// only into a sandboxed frame's srcdoc (no scripts, no same origin), and only
// http(s) addresses become links.
import type { ConsoleAccount, ServiceDelivery, ServiceView } from '../service-view.ts';
import type { Fault } from './host.ts';

export interface ConsoleVendor {
  vendor: string;
  prefixes: string[];
  differences?: readonly string[];
}

export interface ConsoleData {
  vendors: ConsoleVendor[];
  /** Every recording kind (emails, tasks, ...) as /_local/<kind> serves it. */
  records: Record<string, unknown>;
  faults: Fault[];
  latency: Record<string, number>;
  /** The service's accounts and delivery log, when the stack could read them; the error otherwise. */
  service?: ServiceView | { error: string };
}

type Obj = Record<string, any>;
const esc = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
/** Escaped, with a place to break the line after each @ (a long address then wraps at its domain). */
const escBreakable = (value: unknown): string => esc(value).replaceAll('@', '@<wbr>');
const list = (value: unknown): Obj[] => (Array.isArray(value) ? (value as Obj[]) : []);
const str = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));
const isHttp = (url: string) => /^https?:\/\/[^\s"'<>]+$/i.test(url);
const link = (url: string, label = url) => (isHttp(url) ? `<a href="${esc(url)}" target="_blank" rel="noopener noreferrer">${esc(label)}</a>` : esc(label));
const when = (value: unknown) => {
  const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(str(value)) ? Number(value) : Date.parse(str(value));
  if (!Number.isFinite(n)) return '';
  const ms = n < 1e11 ? n * 1000 : n; // epoch seconds or milliseconds
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
};
const sortTime = (value: unknown) => {
  const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(str(value)) ? Number(value) : Date.parse(str(value));
  return Number.isFinite(n) ? (n < 1e11 ? n * 1000 : n) : 0;
};
/** Newest first by `at`; records without a time keep their (newest-first) order after those with one. */
const newestFirst = <T>(items: T[], at: (item: T) => unknown): T[] =>
  items.map((item, i) => ({ item, i, t: sortTime(at(item)) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.item);

/**
 * What a person knows an account by: its company name, else its contact's address (an account made
 * at signup may have no company name yet), else its slug; the id only when it has none of these.
 */
export const accountLabel = (a: ConsoleAccount): string => a.name ?? a.contactEmail ?? a.emails[0] ?? a.slug ?? a.id;

/** Which account a record was for, from what the vendor call itself carried. */
export function accountFinder(accounts: ConsoleAccount[]) {
  const byEmail = new Map<string, ConsoleAccount>();
  for (const a of accounts) for (const e of a.emails) byEmail.set(e.toLowerCase(), a);
  return (hints: { id?: string; emails?: string[]; slug?: string; text?: string; customer?: string }): ConsoleAccount | undefined => {
    if (hints.id) {
      const found = accounts.find((a) => a.id === hints.id);
      if (found) return found;
    }
    if (hints.customer) {
      const found = accounts.find((a) => a.stripeCustomer === hints.customer);
      if (found) return found;
    }
    if (hints.slug) {
      const found = accounts.find((a) => a.slug === hints.slug);
      if (found) return found;
    }
    for (const e of hints.emails ?? []) {
      const found = byEmail.get(e.toLowerCase());
      if (found) return found;
    }
    const text = hints.text?.toLowerCase();
    if (text) {
      return (
        accounts.find((a) => text.includes(a.id.toLowerCase())) ??
        accounts.find((a) => a.slug && text.includes(`(${a.slug})`)) ??
        accounts.find((a) => a.slug && new RegExp(`(^|/)${a.slug.replace(/[^a-z0-9-]/gi, '')}(/|$)`).test(text)) ??
        accounts.find((a) => a.name && a.name.length > 2 && text.includes(a.name.toLowerCase())) ??
        accounts.find((a) => a.domain && text.includes(a.domain.toLowerCase()))
      );
    }
    return undefined;
  };
}

export function consolePage(data: ConsoleData): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local console</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<style>${STYLE}</style></head>
<body><header><h1>Local console</h1><span class="muted">vendor emulators · newest first</span>
<label class="refresh"><input type="checkbox" id="auto" checked> refresh every 3 s</label></header>
<main id="console">${consoleMain(data)}</main>
<script>${SCRIPT}</script></body></html>`;
}

/** The part of the page that refreshes. */
export function consoleMain(data: ConsoleData): string {
  const service = data.service && 'accounts' in data.service ? data.service : undefined;
  const accountOf = accountFinder(service?.accounts ?? []);
  const account = (a: ConsoleAccount | undefined, fallback = '') =>
    a
      ? `<span class="acct" title="${esc([`account ${a.id}`, a.slug && `portal ${a.slug}`, a.contactEmail && `contact ${a.contactEmail}`].filter(Boolean).join(' · '))}">${escBreakable(accountLabel(a))} <small>${esc(a.id.slice(0, 8))}</small></span>`
      : `<span class="acct none">${esc(fallback || 'no account')}</span>`;
  const r = data.records;
  const sections = [
    faultsSection(data),
    mailbox(r, accountOf, account),
    tasksSection(list(r.tasks), accountOf, account),
    storageSection(list(r.storage), accountOf, account),
    leadsSection(list(r.crm), accountOf, account),
    chatSection(list(r.chat), accountOf, account),
    paymentsSection(list(r.payments), accountOf, account),
    deliveriesSection(list(r['payment-events']), list(r.payments), service?.deliveries ?? [], accountOf, account, data.service && 'error' in data.service ? data.service.error : undefined),
    otherSection(r),
    vendorsSection(data),
  ];
  return sections.join('\n');
}

type AccountOf = ReturnType<typeof accountFinder>;
type AccountCell = (a: ConsoleAccount | undefined, fallback?: string) => string;

function faultsSection(data: ConsoleData): string {
  const rows = data.faults
    .map(
      (f) =>
        `<tr><td>${esc(f.vendor)}</td><td>${esc(f.mode)}</td><td>${f.remaining === 'always' ? 'until cleared' : `${esc(f.remaining)} more`}</td><td>${esc(f.match ?? '')}</td><td>${f.mode === 'throttle' ? `${esc(f.retryAfterSeconds)} s` : ''}</td></tr>`,
    )
    .join('');
  const latency = Object.entries(data.latency)
    .map(([vendor, ms]) => `${esc(vendor)} +${esc(ms)} ms`)
    .join(', ');
  return `<section id="faults"><h2>Active faults (${data.faults.length})</h2>
${data.faults.length ? `<table><tr><th>vendor</th><th>mode</th><th>left</th><th>match</th><th>retry after</th></tr>${rows}</table><button type="button" id="clear-faults">Clear faults</button> <span class="muted">(DELETE /_local/faults: recordings stay)</span>` : '<p class="muted">None: every vendor answers normally.</p>'}
${latency ? `<p>Latency: ${latency}</p>` : ''}</section>`;
}

interface Mail {
  id: string;
  at: string;
  from: string;
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  headers: [string, string][];
  via: string;
}

function mailbox(r: Record<string, unknown>, accountOf: AccountOf, account: AccountCell): string {
  const mails: Mail[] = [
    ...list(r.emails).map((e) => ({
      id: str(e.id),
      at: str(e.created_at),
      from: str(e.from),
      to: list(e.to).map(str),
      subject: str(e.subject),
      html: typeof e.html === 'string' ? e.html : undefined,
      text: typeof e.text === 'string' ? e.text : undefined,
      headers: [
        ['Reply-To', list(e.reply_to).map(str).join(', ')],
        ['Tags', list(e.tags).map((t) => `${str(t.name)}=${str(t.value)}`).join(', ')],
        ['Idempotency-Key', str(e.idempotency_key)],
      ].filter(([, v]) => v) as [string, string][],
      via: 'Resend',
    })),
    ...list(r['auth-emails']).map((e) => ({
      id: str(e.id),
      at: str(e.created_at),
      from: 'Supabase Auth',
      to: [str(e.to)],
      subject: str(e.subject),
      text: `${str(e.subject)}\n\nFollow this link: ${str(e.link)}\n\nOr enter the code: ${str(e.otp)}`,
      headers: [['Kind', str(e.kind)]] as [string, string][],
      via: 'Supabase Auth',
    })),
  ];
  const sorted = newestFirst(mails, (m) => m.at);
  const items = sorted
    .map((m, i) => {
      // The addressee, else what the e-mail is about: an account id in its idempotency key, a name in its subject (the team's notices).
      const acct = accountOf({ emails: m.to, text: `${m.headers.find(([k]) => k === 'Idempotency-Key')?.[1] ?? ''}\n${m.subject}` });
      const links = linksOf(m.html, m.text);
      return `<details class="mail"${i === 0 ? ' open' : ''} id="mail-${esc(m.id)}"><summary><span class="time">${esc(when(m.at))}</span> <b>${esc(m.subject || '(no subject)')}</b> <span class="muted">to ${esc(m.to.join(', '))}</span> ${account(acct)}</summary>
<table class="headers"><tr><th>From</th><td>${esc(m.from)}</td></tr><tr><th>To</th><td>${esc(m.to.join(', '))}</td></tr><tr><th>Subject</th><td>${esc(m.subject)}</td></tr><tr><th>Date</th><td>${esc(m.at)}</td></tr><tr><th>Sent through</th><td>${esc(m.via)}</td></tr>${m.headers.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
${links.length ? `<p class="links"><b>Links:</b> ${links.map((u) => link(u)).join(' · ')}</p>` : ''}
${m.html !== undefined ? `<h4>HTML</h4><iframe class="html" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc="${esc(`<base target="_blank">${m.html}`)}"></iframe>` : ''}
${m.text !== undefined ? `<h4>Text</h4><pre>${esc(m.text)}</pre>` : ''}</details>`;
    })
    .join('');
  return `<section id="mailbox"><h2>Mailbox (${mails.length})</h2>${items || '<p class="muted">No e-mail yet.</p>'}</section>`;
}

/** The http(s) addresses an e-mail links to: its HTML's hrefs, then the addresses in its text. */
export function linksOf(html: string | undefined, text: string | undefined): string[] {
  const found: string[] = [];
  for (const m of (html ?? '').matchAll(/href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) found.push(decodeEntities(m[1] ?? m[2] ?? ''));
  for (const m of (text ?? '').matchAll(/https?:\/\/[^\s<>"')\]]+/gi)) found.push(m[0]);
  return [...new Set(found.filter(isHttp))];
}

const decodeEntities = (s: string) => s.replace(/&amp;/g, '&').replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

function tasksSection(folders: Obj[], accountOf: AccountOf, account: AccountCell): string {
  const items = [...folders]
    .reverse()
    .map((f) => {
      const lists = list(f.lists);
      const taskCount = lists.reduce((n, l) => n + list(l.tasks).length, 0);
      const body = lists
        .map(
          (l) =>
            `<h4>${esc(l.name)} <span class="muted">(${list(l.tasks).length} tasks)</span></h4><ul>${newestFirst(list(l.tasks), (t) => t.date_created)
              .map(
                (t) =>
                  `<li><b>${esc(t.name)}</b> <span class="tag">${esc(t.status?.status)}</span>${t.archived ? ' <span class="tag">archived</span>' : ''}${t.due_date ? ` <span class="muted">due ${esc(when(t.due_date))}</span>` : ''} ${t.url ? link(str(t.url), 'open') : ''}${t.description ? `<div class="muted desc">${esc(str(t.description).slice(0, 400))}</div>` : ''}</li>`,
              )
              .join('')}</ul>`,
        )
        .join('');
      return `<details class="item"><summary><b>${esc(f.name)}</b>${f.archived ? ' <span class="tag">archived</span>' : ''} <span class="muted">${lists.length} lists, ${taskCount} tasks</span> ${account(accountOf({ text: str(f.name) }))}</summary>${body}</details>`;
    })
    .join('');
  const taskTotal = folders.reduce((n, f) => n + list(f.lists).reduce((m, l) => m + list(l.tasks).length, 0), 0);
  return `<section id="tasks"><h2>Tasks (${taskTotal} in ${folders.length} folders) <small>ClickUp</small></h2>${items || '<p class="muted">No folders yet.</p>'}</section>`;
}

function storageSection(entries: Obj[], accountOf: AccountOf, account: AccountCell): string {
  // One row per client folder (a folder that has or had a shared link, or a top folder), with what is under it.
  const folders = entries.filter((e) => e.type === 'folder');
  const shared = (f: Obj) => list(f.sharedLinks).length > 0 || Boolean(f.sharedLink);
  const roots = folders.filter((f) => shared(f) || !folders.some((p) => p !== f && str(f.path).toLowerCase().startsWith(`${str(p.path).toLowerCase()}/`) && shared(p)));
  const clientFolders = roots.filter((f) => shared(f) || entries.some((e) => str(e.path).toLowerCase().startsWith(`${str(f.path).toLowerCase()}/`) && e.type === 'file'));
  const shown = clientFolders.length ? clientFolders : roots;
  const rows = [...shown]
    .reverse()
    .map((f) => {
      const under = entries.filter((e) => str(e.path).toLowerCase().startsWith(`${str(f.path).toLowerCase()}/`));
      const slug = str(f.path).split('/').filter(Boolean).pop();
      return `<tr><td>${esc(f.path)}</td><td>${under.filter((e) => e.type === 'folder').length} folders, ${under.filter((e) => e.type === 'file').length} files</td><td>${f.sharedLink ? link(str(f.sharedLink)) : `<span class="muted">${list(f.sharedLinks).length ? 'link revoked' : 'not shared'}</span>`}</td><td>${account(accountOf({ slug, text: str(f.path) }))}</td></tr>`;
    })
    .join('');
  const links = entries.filter((e) => e.sharedLink).length;
  return `<section id="storage"><h2>Folders and shared links (${shown.length} folders, ${links} links) <small>Dropbox</small></h2>${rows ? `<table><tr><th>folder</th><th>holds</th><th>shared link</th><th>account</th></tr>${rows}</table>` : '<p class="muted">No folders yet.</p>'}</section>`;
}

function leadsSection(leads: Obj[], accountOf: AccountOf, account: AccountCell): string {
  const rows = newestFirst(leads, (l) => l.date_created)
    .map((l) => {
      const contacts = list(l.contacts);
      const emails = contacts.flatMap((c) => list(c.emails).map((e) => str(e.email)));
      return `<tr><td class="time">${esc(when(l.date_created))}</td><td><b>${esc(l.display_name ?? l.name)}</b>${l.url ? `<br>${link(str(l.url))}` : ''}</td><td>${esc(l.status_label ?? '')}</td><td class="wrap">${contacts.map((c) => contactLine(c)).join('<br>')}</td><td>${account(accountOf({ emails, text: `${str(l.name)} ${str(l.url)}` }))}</td></tr>`;
    })
    .join('');
  return `<section id="leads"><h2>Leads (${leads.length}) <small>Close</small></h2>${rows ? `<table><tr><th>created</th><th>lead</th><th>status</th><th>contacts</th><th>account</th></tr>${rows}</table>` : '<p class="muted">No leads yet.</p>'}</section>`;
}

/** A lead's contact: its name, when it is not just one of its addresses, and its addresses. */
function contactLine(c: Obj): string {
  const emails = [...new Set(list(c.emails).map((e) => str(e.email)))];
  const name = str(c.name);
  return [name && !emails.includes(name) ? esc(name) : '', esc(emails.join(', '))].filter(Boolean).join(' ');
}

function chatSection(messages: Obj[], accountOf: AccountOf, account: AccountCell): string {
  const rows = newestFirst(messages, (m) => m.ts)
    .map((m) => {
      const blocks = list(m.blocks)
        .map((b) => str(b.text?.text))
        .filter(Boolean);
      const text = str(m.text) || blocks.join('\n');
      return `<tr><td class="time">${esc(when(str(m.ts).split('.')[0]))}</td><td>${esc(m.channel)}${m.thread_ts ? ' <span class="muted">(thread)</span>' : ''}</td><td><pre class="chat">${esc(text)}</pre></td><td>${account(accountOf({ text: `${text}\n${blocks.join('\n')}` }))}</td></tr>`;
    })
    .join('');
  return `<section id="chat"><h2>Chat posts (${messages.length}) <small>Slack</small></h2>${rows ? `<table><tr><th>posted</th><th>channel</th><th>message</th><th>account</th></tr>${rows}</table>` : '<p class="muted">No posts yet.</p>'}</section>`;
}

/** The account a checkout session was for: the account id our checkout wrote, its customer, or its payer's address. */
function sessionAccount(s: Obj, accountOf: AccountOf): ConsoleAccount | undefined {
  const metadata = (s.metadata ?? {}) as Obj;
  return accountOf({ id: str(metadata.account_id ?? metadata.accountId ?? s.client_reference_id), customer: str(s.customer), emails: [str(s.customer_email ?? s.customer_details?.email)] });
}

function paymentsSection(sessions: Obj[], accountOf: AccountOf, account: AccountCell): string {
  const rows = newestFirst(sessions, (s) => s.created)
    .map((s) => {
      const amount = typeof s.amount_total === 'number' ? `${(s.amount_total / 100).toFixed(2)} ${esc(str(s.currency).toUpperCase())}` : '';
      const plan = list(s.line_items)
        .map((li) => str(li.price ?? li.description ?? ''))
        .join(', ');
      return `<tr><td class="time">${esc(when(s.created))}</td><td><code class="id">${esc(s.id)}</code><br><span class="muted">${esc(plan)}</span></td><td>${esc(s.status)} / ${esc(s.payment_status)}</td><td class="amount">${amount}</td><td class="wrap">${escBreakable(s.customer_email ?? s.customer_details?.email ?? '')}</td><td>${list(s.deliveries).length} events</td><td>${account(sessionAccount(s, accountOf))}</td></tr>`;
    })
    .join('');
  return `<section id="payments"><h2>Payments (${sessions.length} checkout sessions) <small>Stripe</small></h2>${rows ? `<table><tr><th>created</th><th>session</th><th>status</th><th>amount</th><th>customer</th><th>webhook</th><th>account</th></tr>${rows}</table>` : '<p class="muted">No checkout sessions yet.</p>'}</section>`;
}

function deliveriesSection(sent: Obj[], sessions: Obj[], received: ServiceDelivery[], accountOf: AccountOf, account: AccountCell, serviceError?: string): string {
  // A delivered event names its checkout session or subscription; the session says whose it was.
  const sessionOf = (d: Obj) => sessions.find((s) => (d.session && s.id === d.session) || (d.subscription && s.subscription === d.subscription));
  const stripeRows = newestFirst(sent, (d) => d.delivered_at)
    .map((d) => {
      const session = sessionOf(d);
      return `<tr><td class="time">${esc(when(d.delivered_at))}</td><td>${esc(d.event?.type)}<br><code class="id muted">${esc(d.event?.id)}</code></td><td>${d.status ? esc(d.status) : `<span class="bad">${esc(d.error ?? 'no answer')}</span>`}</td><td><code>${esc(typeof d.answer === 'string' ? d.answer : JSON.stringify(d.answer ?? ''))}</code></td><td>${account(session && sessionAccount(session, accountOf), session ? '' : 'no checkout session')}</td></tr>`;
    })
    .join('');
  const receivedRows = newestFirst(received, (d) => d.receivedAt)
    .map(
      (d) =>
        `<tr><td class="time">${esc(when(d.receivedAt))}</td><td>${esc(d.source ?? '')}</td><td><code>${esc(d.key)}</code></td><td>${d.outcome === undefined ? '<span class="muted">being handled</span>' : esc(d.outcome)}</td><td>${account(accountOf({ id: d.accountId }), d.accountId)}</td></tr>`,
    )
    .join('');
  return `<section id="deliveries"><h2>Webhook deliveries</h2>
<h3>Taken by the service (${received.length}) <small>webhook_events</small></h3>
${serviceError ? `<p class="bad">The service's tables could not be read: ${esc(serviceError)}</p>` : receivedRows ? `<table><tr><th>received</th><th>provider</th><th>event key</th><th>outcome</th><th>account</th></tr>${receivedRows}</table>` : '<p class="muted">None yet.</p>'}
<h3>Sent by the Stripe emulator (${sent.length})</h3>
${stripeRows ? `<table><tr><th>sent</th><th>event</th><th>answer</th><th>body</th><th>account</th></tr>${stripeRows}</table>` : '<p class="muted">None yet.</p>'}</section>`;
}

const SHOWN = new Set(['emails', 'auth-emails', 'tasks', 'storage', 'crm', 'chat', 'payments', 'payment-events']);

function otherSection(records: Record<string, unknown>): string {
  const others = Object.entries(records).filter(([kind]) => !SHOWN.has(kind));
  if (!others.length) return '';
  return `<section id="other"><h2>Other recordings</h2>${others
    .map(([kind, value]) => {
      const count = Array.isArray(value) ? value.length : Object.keys((value as object) ?? {}).length;
      return `<details class="item"><summary><b>${esc(kind)}</b> (${count}) <a href="/_local/${esc(encodeURIComponent(kind))}">JSON</a></summary><pre>${esc(JSON.stringify(value, null, 2).slice(0, 8000))}</pre></details>`;
    })
    .join('')}</section>`;
}

function vendorsSection(data: ConsoleData): string {
  return `<section id="vendors"><h2>Emulated vendors</h2><ul>${data.vendors
    .map(
      (v) =>
        `<li><b>${esc(v.vendor)}</b> <span class="muted">${esc(v.prefixes.join(' '))}</span>${v.differences?.length ? `<details><summary>Differs from the real vendor</summary><ul>${v.differences.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></details>` : ''}</li>`,
    )
    .join('')}</ul><p class="muted">Every recording as JSON: <code>/_local/&lt;kind&gt;</code>; every vendor call: <a href="/_local/requests">/_local/requests</a>; forget everything: <code>curl -X DELETE …/_local</code>.</p></section>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f8}
header{display:flex;gap:1rem;align-items:baseline;padding:.8rem 1.5rem;background:#1f2937;color:#fff;position:sticky;top:0;z-index:1}
header h1{font-size:1.2rem;margin:0}header .muted{color:#cbd5e1}.refresh{margin-left:auto;color:#e5e7eb}
main{padding:1rem 1.5rem;max-width:80rem}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:.6rem 1rem;margin-bottom:1rem}
h2{font-size:1.05rem;margin:.3rem 0 .6rem}h2 small,h3 small{color:#6b7280;font-weight:normal}h3{font-size:.95rem}h4{margin:.6rem 0 .3rem;font-size:.9rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-top:1px solid #f0f0f0}th{color:#6b7280;font-weight:600}
.muted{color:#6b7280}.bad{color:#b91c1c}.time{white-space:nowrap;color:#6b7280;font-variant-numeric:tabular-nums}
.acct{display:inline-block;background:#eef2ff;color:#3730a3;border-radius:4px;padding:0 .4rem;font-size:.85em;overflow-wrap:anywhere}.acct.none{background:#f3f4f6;color:#6b7280}
.wrap,code.id{overflow-wrap:anywhere}.amount{white-space:nowrap}
.tag{background:#ecfdf5;color:#065f46;border-radius:4px;padding:0 .3rem;font-size:.85em}
details.mail,details.item{border-top:1px solid #f0f0f0;padding:.35rem 0}summary{cursor:pointer}
table.headers{width:auto;margin:.4rem 0}table.headers th{width:8rem}
iframe.html{width:100%;height:26rem;border:1px solid #e5e7eb;border-radius:4px;background:#fff}
pre{background:#f8fafc;border:1px solid #eef0f3;padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24rem;overflow:auto}
pre.chat{margin:0;max-height:10rem}.desc{white-space:pre-wrap;font-size:.9em}
button{font:inherit;padding:.25rem .8rem;border-radius:4px;border:1px solid #b91c1c;background:#fef2f2;color:#991b1b;cursor:pointer}
code{font-size:.85em;overflow-wrap:anywhere}`;

// Refreshes the main part in place, keeping what is open and where the page is scrolled.
const SCRIPT = `
const main = document.getElementById('console');
let last = main.innerHTML;
async function refresh(force) {
  if (!force && !document.getElementById('auto').checked) return;
  const res = await fetch('/?part=main', { cache: 'no-store' }).catch(() => null);
  if (!res || !res.ok) return;
  const html = await res.text();
  if (html === last) return;
  const open = new Set([...main.querySelectorAll('details[open]')].map((d) => d.id || d.querySelector('summary')?.textContent));
  const closed = new Set([...main.querySelectorAll('details:not([open])')].map((d) => d.id || d.querySelector('summary')?.textContent));
  main.innerHTML = html;
  last = html;
  for (const d of main.querySelectorAll('details')) {
    const key = d.id || d.querySelector('summary')?.textContent;
    if (open.has(key)) d.open = true;
    else if (closed.has(key)) d.open = false;
  }
}
setInterval(refresh, 3000);
document.addEventListener('click', async (event) => {
  if (event.target.id !== 'clear-faults') return;
  await fetch('/_local/faults', { method: 'DELETE' });
  await refresh(true);
});`;
