// Two onboarding runs of one account at the same time: a resubmission with a
// changed detail while the first run works (a different submission, so a run
// of its own). Every step of both runs reaches for the same things at the
// same moment (vendors made slow widen the window); each thing is made once.
import { afterEach, expect, it } from 'vitest';
import { api, stack } from '../support/http.ts';
import { expectProvisionedOnce, followRun, SERVICE_KEY, uniqueToken } from '../support/onboarding.ts';

const VENDORS = ['clickup', 'dropbox', 'resend', 'slack', 'close'];
const latency = (vendor: string, ms: number) =>
  fetch(`${stack().urls.emulators}/_local/latency`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vendor, ms }) });

afterEach(async () => {
  for (const vendor of VENDORS) await latency(vendor, 0);
});

it('makes everything once when a changed resubmission runs beside the first run', async () => {
  for (const vendor of VENDORS) await latency(vendor, 150);
  const t = uniqueToken();
  const company = { name: `Overlap ${t}`, slug: `overlap-${t}`, email: `overlap-${t}@example.com` };
  const submit = (phone: string) => api('/api/onboarding-v2', { body: { email: company.email, companyName: company.name, phone }, headers: SERVICE_KEY });

  const [first, second] = await Promise.all([submit('+1 555 0100'), submit('+1 555 0199')]);
  const answers = await Promise.all([followRun(first), followRun(second)]);
  expect(answers.map((a) => a.body.executionId)).toHaveLength(2);
  expect(new Set(answers.map((a) => a.body.executionId)).size).toBe(2);
  for (const a of answers) {
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body).toMatchObject({ success: true, portalSlug: company.slug });
  }
  await expectProvisionedOnce(company.name, company.slug, company.email);
});
