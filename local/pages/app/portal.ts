// The client portal's pages: /verify, /forgot-password, /reset-password,
// /onboarding, /invitations/{id}, and /{portalSlug}, the client's home.
import { ApiError, unwrap, type DataOf } from '@onboarding-automation/api-client';
import { field, form, h, link, paragraph, show } from './dom.ts';
import { api, config, showSignIn, signedInUser, signOutButton } from './context.ts';

type Me = DataOf<'currentUser'>;

/** /verify?token=: the link of the verification e-mail. */
export async function verifyPage(params: URLSearchParams): Promise<void> {
  const token = params.get('token');
  if (!token) return show('Confirm your e-mail address', paragraph('This link has no token: open the link of the e-mail again.'));
  show('Confirm your e-mail address', paragraph('Confirming…'));
  const { data, error, response } = await api.POST('/api/verify-email', { body: { token } });
  if (!data) {
    const reason = new ApiError(response.status, error);
    return show('Confirm your e-mail address', h('p', { class: 'problem', id: 'verify-outcome' }, reason.message, ' ', h('code', {}, reason.code)));
  }
  show(
    'E-mail address confirmed',
    h('p', { id: 'verify-outcome' }, `${data.email} is confirmed.`),
    paragraph(link(data.redirectTo, data.portalSlug ? 'Go to your client portal' : 'Tell us about your company'), ' · ', link(`${config.dashboardUrl}/dashboard`, 'Choose a plan on the dashboard')),
  );
}

/** /forgot-password: e-mail a reset link (the answer is the same whether or not the account exists). */
export function forgotPasswordPage(): void {
  show(
    'Forgot your password?',
    form([field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'username' })], 'Send me a reset link', async ({ email }) =>
      paragraph(unwrap(await api.POST('/api/auth/forgot-password', { body: { email: email! } })).message),
    ),
  );
}

/**
 * /reset-password: where the reset link lands. The identity provider puts the
 * recovery token in the URL's hash (#access_token=…&type=recovery&expires_in=…),
 * which never reaches a server; the page posts it with the new password.
 * An expired or used link arrives as #error=…&error_description=….
 */
export function resetPasswordPage(): void {
  const hash = new URLSearchParams(location.hash.slice(1));
  // The token stays in this page's memory only, not in the address bar or its history.
  history.replaceState(null, '', location.pathname);
  const token = hash.get('access_token');
  if (!token) {
    const reason = hash.get('error_description') ?? 'This page is opened from the link of a password-reset e-mail.';
    return show('Choose a new password', h('p', { class: 'problem' }, reason), paragraph(link('/forgot-password', 'Send a new link')));
  }
  show(
    'Choose a new password',
    form([field('New password', 'password', { type: 'password', required: true, autocomplete: 'new-password' })], 'Save the new password', async ({ password }) => {
      const done = unwrap(await api.POST('/api/auth/reset-password', { body: { password: password!, token } }));
      return paragraph(done.message, ' ', link('/login', 'Sign in'));
    }),
  );
}

/** /login on the portal: then the page it was sent from (?next=), or the client's home. */
export function portalHome(): Promise<void> {
  return withUser('Client portal', async (me) => {
    const home = me.accounts.find((a) => a.portalSlug);
    location.replace(home ? `/${home.portalSlug}` : '/onboarding');
  });
}

/** /onboarding: the form for a user whose company is not known yet. */
export function onboardingPage(): Promise<void> {
  return withUser('Tell us about your company', async (me) => {
    show('Tell us about your company', paragraph(`Signed in as ${me.email} `, signOutButton()), onboardingForm(me));
  });
}

/** /{portalSlug}: the client's home, with the onboarding form to complete or update. */
export function clientHome(slug: string): Promise<void> {
  return withUser('Client portal', async (me) => {
    const summary = me.accounts.find((a) => a.portalSlug === slug);
    if (!summary) return show('Client portal', paragraph(`No portal named ${slug} among your accounts.`), paragraph(link('/', 'Your portal')));
    const account = unwrap(await api.GET('/api/accounts/{accountId}', { params: { path: { accountId: summary.accountId } } }));
    const onboarding = account.onboarding;
    show(
      account.companyName ?? slug,
      paragraph(`Signed in as ${me.email} `, signOutButton()),
      h(
        'dl',
        { id: 'account' },
        h('dt', {}, 'Status'), h('dd', {}, account.status),
        h('dt', {}, 'Plan'), h('dd', {}, account.plan ?? 'none', ' ', link(`${config.dashboardUrl}/dashboard`, 'Change on the dashboard')),
        h('dt', {}, 'Shared folder'), h('dd', {}, account.storageLink ? link(account.storageLink, account.storageLink) : 'not yet'),
        h('dt', {}, 'Onboarding'), h('dd', {}, onboarding ? `${onboarding.status}${onboarding.integrations ? `: ${Object.entries(onboarding.integrations).map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}` : 'not started'),
      ),
      h('h2', {}, 'Onboarding form'),
      onboardingForm(me, { accountId: account.accountId, companyName: account.companyName ?? '', companyUrl: account.companyUrl ?? '' }),
    );
  });
}

/** /invitations/{id}: the link of an invitation e-mail. */
export function invitationPage(invitationId: string): Promise<void> {
  return withUser('Invitation', async (me) => {
    const invitation = me.invitations.find((i) => i.invitationId === invitationId);
    show(
      'Invitation',
      paragraph(invitation ? `${invitation.companyName ?? 'An account'} invites ${me.email} as ${invitation.role}.` : `Signed in as ${me.email}.`),
      form([], 'Accept the invitation', async () => {
        const accepted = unwrap(await api.POST('/api/invitations/{invitationId}/accept', { params: { path: { invitationId } } }));
        const joined = (await signedInUser())?.accounts.find((a) => a.accountId === accepted.accountId);
        return paragraph(`You are now ${accepted.role} of ${joined?.companyName ?? 'the account'}. `, joined?.portalSlug ? link(`/${joined.portalSlug}`, 'Go to its portal') : link('/onboarding', 'Complete its onboarding'));
      }),
    );
  });
}

async function withUser(title: string, then: (me: Me) => Promise<void>): Promise<void> {
  const me = await signedInUser();
  if (!me) return showSignIn(title, 'Sign in to continue.');
  await then(me);
}

/**
 * The portal's onboarding form (POST /api/onboarding-v2, as the signed-in
 * owner). The run provisions every integration; when it outlives the API's
 * wait, the answer is 202 and the page asks the run's statusUrl until it ends.
 */
function onboardingForm(me: Me, known: { accountId?: string; companyName?: string; companyUrl?: string } = {}): HTMLFormElement {
  return form(
    [
      field('Company', 'companyName', { required: true, value: known.companyName ?? '' }),
      field('Website', 'companyUrl', { value: known.companyUrl ?? '', placeholder: 'example.com' }),
      field('Phone', 'phone', { type: 'tel' }),
      field('City', 'location'),
      field('Time zone', 'timezone', { value: Intl.DateTimeFormat().resolvedOptions().timeZone }),
    ],
    'Submit',
    async ({ companyName, companyUrl, phone, location: city, timezone }) => {
      const optional = Object.fromEntries(Object.entries({ companyUrl, phone, location: city, timezone }).filter(([, v]) => v));
      const body = { email: me.email, companyName: companyName!, ...(known.accountId ? { accountId: known.accountId } : {}), ...optional };
      let { data, error, response } = await api.POST('/api/onboarding-v2', { body });
      while (response.status === 202 && data && 'statusUrl' in data) {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        ({ data, error, response } = await api.GET('/api/onboarding/runs/{runId}', { params: { path: { runId: data.executionId } } }));
      }
      const result = data ?? error;
      if (!result || !('success' in result)) throw new ApiError(response.status, error);
      return [
        paragraph(result.success ? 'Your workspace is ready.' : 'Some of your workspace could not be set up yet; we have been told and will finish it.'),
        h('ul', {}, Object.entries(result.integrations).map(([name, outcome]) => h('li', {}, `${name}: ${outcome}`))),
        paragraph(link(`/${result.portalSlug}`, 'Your client portal')),
      ];
    },
  );
}
