// Onboarding over HTTP on the local stack, as the portal calls it, with the
// vendor emulators standing in for ClickUp, Dropbox, Resend, Slack and Close.
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { api, errorCode, injectFault, recorded, stack, type Reply } from '../support/http.ts';
import { executionStatus, followRun } from '../support/onboarding.ts';
import { memberRecord, memberRecordOf, stackDb as db, table } from '../support/stack-db.ts';
import { bearer, signedInUser } from '../support/users.ts';

const run = promisify(execFile);
const KEY = { 'x-api-key': 'local-internal-api-key' };
const token = () => Math.random().toString(36).slice(2, 8);

const submit = (body: Record<string, unknown>, headers: Record<string, string> = KEY) => api('/api/onboarding-v2', { body, headers });
const finalAnswer = (reply: Reply) => followRun(reply, 120);

/** Submits the form and follows a 202 to the run's final answer: whether a run ends within the wait is the machine's, not the test's. */
const onboard = async (body: Record<string, unknown>, headers: Record<string, string> = KEY) => finalAnswer(await submit(body, headers));

describe('onboarding-v2', () => {
  it('provisions a new company across every integration and answers with the contract body', async () => {
    const t = token();
    const email = `ann.${t}@acme-${t}.example`;
    const reply = await onboard({ email, companyName: `Acme ${t}`, website: `acme-${t}.example`, phone: '+1 555 0100', timezone: 'Europe/Berlin' });
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(body).toMatchObject({
      success: true,
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      portalSlug: `acme-${t}`,
      integrations: { clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' },
    });

    // Task tool: the project folder, its three lists and their starter tasks.
    const folders = await recorded('tasks');
    const folder = folders.find((f: { name: string }) => f.name === `Acme ${t} (acme-${t})`);
    expect(folder.lists.map((l: { name: string }) => l.name).sort()).toEqual(['Maintenance', 'Onboarding', 'Site']);
    for (const list of folder.lists) expect(list.tasks.length).toBeGreaterThanOrEqual(3);

    // Storage: exactly ten subfolders under the slug's folder, and one shared link, also on the member.
    const storage = await recorded('storage');
    const root = `/Clients/acme-${t}`;
    const subfolders = storage.filter((e: { path: string; type: string }) => e.path.startsWith(`${root}/`) && e.type === 'folder');
    expect(subfolders).toHaveLength(10);
    const link = storage.find((e: { path: string }) => e.path === root).sharedLink;
    expect(link).toBe(body.details.dropbox.link);
    const member = (await memberRecord(body.accountId, email))!;
    expect(member).toMatchObject({ account_id: body.accountId, storage_link: link, storage_path: root, status: 'active' });
    expect(member.storage_created_at).toEqual(expect.any(String));

    // E-mails, the chat notice and the lead.
    const emails = (await recorded('emails')).filter((e: { to: string[] }) => e.to.includes(email));
    // The onboarding e-mails, and the invitation to own the account the service opened for the address.
    expect(emails.map((e: { subject: string }) => e.subject).sort()).toEqual([`Join Acme ${t}`, `Welcome aboard, Acme ${t}`, `Your shared workspace for Acme ${t} is ready`]);
    expect(emails.every((e: { text: string; html: string }) => e.text && e.html)).toBe(true);
    // The invitation is the run's to send: its e-mail step sent it and marked it so.
    const invited = await db().send(
      new QueryCommand({ TableName: table('invitations'), IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': email } }),
    );
    expect(invited.Items).toEqual([expect.objectContaining({ account_id: body.accountId, role: 'owner', mail: 'sent' })]);
    expect((await recorded('chat')).filter((m: { text: string }) => m.text.includes(`Acme ${t}`))).toHaveLength(1);
    const leads = (await recorded('crm')).filter((l: { name: string }) => l.name === `Acme ${t}`);
    expect(leads).toHaveLength(1);
    expect(leads[0].contacts[0].emails[0].email).toBe(email);

    // The account is active, with the latest contact details.
    const account = (await db().send(new GetCommand({ TableName: table('accounts'), Key: { id: body.accountId } }))).Item!;
    expect(account).toMatchObject({ status: 'active', portal_slug: `acme-${t}`, phone: '+1 555 0100', timezone: 'Europe/Berlin' });
    const integrationRow = (await db().send(new GetCommand({ TableName: table('integrations'), Key: { account_id: body.accountId } }))).Item!;
    expect(integrationRow.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The same submission again: the same account and slug, nothing duplicated anywhere.
    const again = await onboard({ email, companyName: `Acme ${t}`, website: `acme-${t}.example`, phone: '+1 555 0100', timezone: 'Europe/Berlin' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ accountId: body.accountId, portalSlug: body.portalSlug });
    // An updated submission (new phone) is a new run: it updates, and still duplicates nothing.
    const updated = await onboard({ email, company: `Acme ${t}`, domain: `acme-${t}.example`, phone_number: '+1 555 0199' });
    expect(updated.status).toBe(200);
    expect(updated.body.accountId).toBe(body.accountId);
    expect((await recorded('tasks')).filter((f: { name: string }) => f.name.includes(`acme-${t}`))).toHaveLength(1);
    expect((await recorded('storage')).filter((e: { path: string }) => e.path.startsWith(`${root}/`))).toHaveLength(10);
    // Welcome, workspace ready, and one invitation to own the account.
    expect((await recorded('emails')).filter((e: { to: string[] }) => e.to.includes(email))).toHaveLength(3);
    expect((await recorded('chat')).filter((m: { text: string }) => m.text.includes(`Acme ${t}`))).toHaveLength(1);
    expect((await recorded('crm')).filter((l: { name: string }) => l.name === `Acme ${t}`)).toHaveLength(1);
  });

  it('ends with close "success" when the CRM fails once, then succeeds', async () => {
    const t = token();
    await injectFault({ vendor: 'close', mode: 'fail', count: 1, match: `crm-${t}` });
    const reply = await onboard({ email: `crm-${t}@example.com`, companyName: `Crm ${t}` });
    expect(reply.status).toBe(200);
    expect(reply.body.integrations.close).toBe('success');
  });

  it("never hands a signed-up stranger another company's CRM lead by typing that company's website", async () => {
    const t = token();
    const domain = `victim-${t}.example`;
    const victim = await onboard({ email: `ceo.${t}@${domain}`, companyName: `Victim ${t}`, website: `https://${domain}` });
    expect(victim.body.details.close.action).toBe('created');
    const victimLead = victim.body.details.close.leadId;

    // A stranger (any address: sign up, verify, log in) onboards their own account under the victim's website.
    const stranger = await signedInUser();
    const reply = await onboard({ email: stranger.email, companyName: `Stranger ${t}`, website: `https://www.${domain}/` }, bearer(stranger.accessToken));
    expect(reply.body.integrations.close).toBe('success');
    // Their own lead, not the victim's: the answer says nothing about whether the agency knows the domain.
    expect(reply.body.details.close).toEqual({ leadId: expect.any(String), action: 'created' });
    expect(reply.body.details.close.leadId).not.toBe(victimLead);
    const lead = (await recorded('crm')).find((l: { id: string }) => l.id === victimLead);
    expect(lead).toMatchObject({ name: `Victim ${t}`, description: expect.stringContaining(`/victim-${t}`) });
    expect(lead.contacts.flatMap((c: { emails: { email: string }[] }) => c.emails.map((e) => e.email))).toEqual([`ceo.${t}@${domain}`]);
  });

  it('reports a permanently failing storage, keeps the rest, records it, and finishes on a redrive', async () => {
    const t = token();
    const email = `drop-${t}@example.com`;
    await injectFault({ vendor: 'dropbox', mode: 'fail', count: 10_000, match: `drop-${t}` });
    const reply = await onboard({ email, companyName: `Drop ${t}` });
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({
      success: false,
      integrations: { clickup: 'success', dropbox: 'failed', resend: 'success', slack: 'success', close: 'success' },
      error: { code: 'integrations_failed' },
    });
    expect(reply.body.errors).toEqual([
      {
        integration: 'dropbox',
        message: expect.stringContaining('dropbox: create folders answered 500'),
        context: expect.objectContaining({ vendor: 'dropbox', status: 500, transient: true, operation: 'create folders' }),
      },
    ]);
    const followUps = await db().send(
      new QueryCommand({ TableName: table('follow_ups'), KeyConditionExpression: 'account_id = :a', ExpressionAttributeValues: { ':a': reply.body.accountId } }),
    );
    expect(followUps.Items).toEqual([expect.objectContaining({ integration: 'dropbox', state: 'open' })]);

    // Wait until the execution is held for an operator, clear the fault, redrive with the project's command.
    const env = { ...process.env, AWS_ENDPOINT_URL_SFN: stack().urls.stepFunctions, AWS_ENDPOINT_URL_DYNAMODB: stack().urls.dynamodb };
    for (let i = 0; i < 60; i++) {
      const { stdout } = await run(process.execPath, ['scripts/executions.ts', 'show', reply.body.executionId], { env });
      if (stdout.includes('status:   FAILED')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const before = { emails: await recorded('emails'), chat: await recorded('chat'), crm: await recorded('crm'), tasks: await recorded('tasks') };
    await fetch(`${stack().urls.emulators}/_local/faults`, { method: 'DELETE' });
    const { stdout } = await run(process.execPath, ['scripts/executions.ts', 'redrive', reply.body.executionId], { env });
    expect(stdout).toContain('status:   SUCCEEDED (redriven 1x');

    const status = await api(`/api/onboarding/runs/${reply.body.executionId}`, { headers: KEY });
    expect(status.status).toBe(200);
    expect(status.body.integrations).toEqual({ clickup: 'success', dropbox: 'success', resend: 'success', slack: 'success', close: 'success' });
    expect((await recorded('storage')).filter((e: { path: string }) => e.path.startsWith(`/Clients/drop-${t}/`))).toHaveLength(10);
    // Nothing else was done twice; the storage-ready e-mail went out once storage existed.
    const mine = (list: { to?: string[]; text?: string }[]) => list.filter((e) => e.to?.includes(email) || e.text?.includes(`Drop ${t}`));
    expect(mine(await recorded('emails')).length).toBe(mine(before.emails).length + 1);
    expect(mine(await recorded('chat'))).toHaveLength(mine(before.chat).length);
    expect((await recorded('crm')).length).toBe(before.crm.length);
    expect((await recorded('tasks')).filter((f: { name: string }) => f.name.includes(`drop-${t}`))).toHaveLength(1);
    const resolved = await db().send(
      new QueryCommand({ TableName: table('follow_ups'), KeyConditionExpression: 'account_id = :a', ExpressionAttributeValues: { ':a': reply.body.accountId } }),
    );
    expect(resolved.Items).toEqual([expect.objectContaining({ integration: 'dropbox', state: 'resolved' })]);
  });

  it("makes the new owner's invitation part of the run: a failure to send it is the e-mail step's, with a follow-up, and a redrive sends it once", async () => {
    const t = token();
    const email = `inv-${t}@example.com`;
    // Only the invitation's e-mail carries its subject, "Join <company>".
    await injectFault({ vendor: 'resend', mode: 'fail', count: 10_000, match: `Join Invfail ${t}` });
    const reply = await finalAnswer(await onboard({ email, companyName: `Invfail ${t}` }));
    expect(reply.status).toBe(500);
    expect(reply.body.integrations).toEqual({ clickup: 'success', dropbox: 'success', resend: 'failed', slack: 'success', close: 'success' });
    expect(reply.body.errors).toEqual([expect.objectContaining({ integration: 'resend', context: expect.objectContaining({ vendor: 'resend', status: 500 }) })]);
    const followUps = await db().send(
      new QueryCommand({ TableName: table('follow_ups'), KeyConditionExpression: 'account_id = :a', ExpressionAttributeValues: { ':a': reply.body.accountId } }),
    );
    expect(followUps.Items).toEqual([expect.objectContaining({ integration: 'resend', state: 'open' })]);
    const invitations = async () =>
      (
        await db().send(
          new QueryCommand({ TableName: table('invitations'), IndexName: 'byEmail', KeyConditionExpression: 'email = :e', ExpressionAttributeValues: { ':e': email } }),
        )
      ).Items!;
    expect(await invitations()).toEqual([expect.objectContaining({ role: 'owner', status: 'pending', mail: 'due' })]);

    const env = { ...process.env, AWS_ENDPOINT_URL_SFN: stack().urls.stepFunctions, AWS_ENDPOINT_URL_DYNAMODB: stack().urls.dynamodb };
    for (let i = 0; i < 60; i++) {
      const { stdout } = await run(process.execPath, ['scripts/executions.ts', 'show', reply.body.executionId], { env });
      if (stdout.includes('status:   FAILED')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await fetch(`${stack().urls.emulators}/_local/faults`, { method: 'DELETE' });
    const { stdout } = await run(process.execPath, ['scripts/executions.ts', 'redrive', reply.body.executionId], { env });
    expect(stdout).toContain('status:   SUCCEEDED (redriven 1x');
    expect((await api(`/api/onboarding/runs/${reply.body.executionId}`, { headers: KEY })).body.integrations.resend).toBe('success');
    expect((await recorded('emails')).filter((e: { to: string[]; subject: string }) => e.to.includes(email) && e.subject === `Join Invfail ${t}`)).toHaveLength(1);
    expect(await invitations()).toEqual([expect.objectContaining({ status: 'pending', mail: 'sent' })]);
  });

  it('answers 202 with a status URL when the run outlives the wait, and the status URL gives the final body', async () => {
    const t = token();
    // Dropbox's calls (all safe to repeat) are each tried in-step before the state machine retries: the
    // slowest way to fail. (A hanging ClickUp create is no longer repeated in-step, so fails too soon.)
    await injectFault({ vendor: 'dropbox', mode: 'hang', count: 10_000, match: `slow-${t}` });
    const reply = await submit({ email: `slow-${t}@example.com`, companyName: `Slow ${t}` });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ status: 'running', executionId: expect.any(String), statusUrl: expect.stringContaining('/api/onboarding/runs/') });
    const final = await finalAnswer(reply);
    expect(final.status).toBe(500);
    expect(final.body.integrations.dropbox).toBe('failed');
    expect(final.body.errors[0].message).toContain('timed out');
  });

  it('answers a recorded run whose execution never started with an error, not 202 for ever', async () => {
    // What a failed StartExecution right after the run's record was written leaves behind.
    const accountId = crypto.randomUUID();
    const runId = `${accountId}-0123456789abcdef`;
    await db().send(
      new PutCommand({
        TableName: table('onboarding_runs'),
        Item: { run_id: runId, item: 'run', account_id: accountId, status: 'running', attempt: -1, started_at: new Date().toISOString() },
      }),
    );
    const status = await api(`/api/onboarding/runs/${runId}`, { headers: KEY });
    expect(status.status).toBe(500);
    expect(errorCode(status)).toBe('onboarding_not_started');
    expect(status.body).toMatchObject({ accountId, executionId: runId });
  });

  it('gives twenty concurrent onboardings of one company name twenty different slugs', async () => {
    const t = token();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => onboard({ email: `same${i}-${t}@example.com`, companyName: `Same Name ${t}` })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const slugs = replies.map((r) => r.body.portalSlug);
    expect(new Set(slugs).size).toBe(20);
    expect(slugs).toContain(`same-name-${t}`);
  });

  it('answers 400 for a missing e-mail or company, naming the field', async () => {
    const noEmail = await onboard({ companyName: 'X' });
    expect(noEmail.status).toBe(400);
    expect(errorCode(noEmail)).toBe('invalid_request');
    expect(noEmail.body.error.details).toContainEqual({ path: '/body/email', message: 'is required' });
    const noCompany = await onboard({ email: 'x@example.com' });
    expect(noCompany.status).toBe(400);
    expect(noCompany.body.error.details[0].path).toBe('/body/companyName');
  });

  it('answers 400, writing nothing, for a metadata number the store cannot hold (beyond ±2^53, or below 1e-130), where it answered 500 after opening the account', async () => {
    for (const n of ['1e16', '12345678901234567890', '-1e16', '1e-200']) {
      const email = `num-${crypto.randomUUID()}@example.com`;
      const res = await api('/api/onboarding-v2', { raw: `{"email":"${email}","companyName":"Numbers","metadata":{"n":${n}}}`, headers: { ...KEY, 'content-type': 'application/json' } });
      expect(res.status, n).toBe(400);
      expect(res.body.error.details[0].path, n).toMatch(/^\/body\/metadata\/n/);
      expect(await memberRecordOf(email), n).toBeUndefined();
    }
    const fine = await onboard({ email: `num-${crypto.randomUUID()}@example.com`, companyName: 'Numbers', metadata: { n: 9007199254740991, tiny: 1e-130, zero: 0, nested: { x: -2.5 } } });
    expect(fine.status).toBe(200);
  });

  // @aws-sdk/util-dynamodb's convertToAttr reads an object's own `constructor` as its class: a map with that key
  // was refused ("Unsupported type passed"), or taken for a Set or Map, after the account was opened.
  it('answers 400, writing nothing, for a metadata key the store cannot hold (constructor), where it answered 500 after opening the account', async () => {
    for (const metadata of [{ constructor: 'x' }, { k: { constructor: 1 } }, { constructor: { name: 'Set' } }]) {
      const email = `ctor-${crypto.randomUUID()}@example.com`;
      const res = await onboard({ email, companyName: 'Ctor Co', metadata });
      expect(res.status, JSON.stringify(metadata)).toBe(400);
      expect(res.body.error.details).toContainEqual({ path: expect.stringMatching(/^\/body\/metadata(\/k)?\/constructor$/), message: 'is not an allowed key name' });
      expect(await memberRecordOf(email)).toBeUndefined();
      expect((await recorded('emails')).filter((e: { to: string[] }) => e.to.includes(email))).toEqual([]);
    }
  });

  it('answers 401 for missing or wrong credentials', async () => {
    const body = { email: 'who@example.com', companyName: 'Who' };
    const attempts: Record<string, string>[] = [{}, { 'x-api-key': 'wrong' }, { 'x-api-key': '' }, { authorization: 'Basic abc' }, { authorization: 'Bearer' }];
    for (const headers of attempts) {
      const reply = await onboard(body, headers);
      expect(reply.status, JSON.stringify(headers)).toBe(401);
      expect(errorCode(reply)).toBe('unauthenticated');
    }
  });

  it('admits a signed-in user onboarding themselves, and no one else, with a bearer token', async () => {
    const t = token();
    const ann = await signedInUser();
    const bob = await signedInUser();
    const body = { email: ann.email, companyName: `Self ${t}` };
    const own = await onboard(body, bearer(ann.accessToken));
    expect(own.status).toBe(200);
    expect(own.body.portalSlug).toBe(`self-${t}`);
    // Reading the run is for the account's members (or the service) only; to others it does not exist.
    expect((await api(`/api/onboarding/runs/${own.body.executionId}`, { headers: bearer(ann.accessToken) })).status).toBe(200);
    expect((await api(`/api/onboarding/runs/${own.body.executionId}`, { headers: bearer(bob.accessToken) })).status).toBe(404);

    for (const headers of [bearer('not-a-token'), bearer(`${ann.accessToken}x`)]) {
      const reply = await onboard(body, headers);
      expect(reply.status).toBe(401);
      expect(errorCode(reply)).toBe('unauthenticated');
    }
    // Bob is signed in, but the form is about Ann: the form's address must be the caller's own.
    const other = await onboard(body, bearer(bob.accessToken));
    expect([other.status, errorCode(other)]).toEqual([403, 'not_your_email']);
    expect((await ann.client.post('/api/auth/logout', undefined, bearer(ann.accessToken))).status).toBe(200);
    expect((await onboard(body, bearer(ann.accessToken))).status).toBe(401);
  });

  it('lets the AWS CLI list and describe the local executions', async () => {
    const t = token();
    const reply = await onboard({ email: `cli-${t}@example.com`, companyName: `Cli ${t}` });
    expect(reply.status).toBe(200);
    // The answer is stored by the run's last step, a moment before its execution ends: the CLI is asked once it has.
    await vi.waitFor(async () => expect(await executionStatus(reply.body.executionId)).not.toBe('RUNNING'), { timeout: 30_000, interval: 250 });
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_DEFAULT_REGION: 'eu-west-1', AWS_PAGER: '' };
    const endpoint = ['--endpoint-url', stack().urls.stepFunctions];
    const machines = JSON.parse((await run('aws', ['stepfunctions', 'list-state-machines', ...endpoint], { env })).stdout);
    const arn = machines.stateMachines.find((m: { name: string }) => m.name === 'agency-backend-local-onboarding').stateMachineArn;
    const listed = JSON.parse((await run('aws', ['stepfunctions', 'list-executions', '--state-machine-arn', arn, ...endpoint], { env })).stdout);
    const execution = listed.executions.find((e: { name: string }) => e.name === reply.body.executionId);
    expect(execution).toMatchObject({ status: 'SUCCEEDED' });
    const described = JSON.parse(
      (await run('aws', ['stepfunctions', 'describe-execution', '--execution-arn', execution.executionArn, ...endpoint], { env })).stdout,
    );
    expect(described).toMatchObject({ status: 'SUCCEEDED', name: reply.body.executionId });
    expect(JSON.parse(described.input)).toMatchObject({ email: `cli-${t}@example.com` });
  });
});
