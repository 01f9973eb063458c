// What every page shares: the settings the page server wrote into the page,
// the API client, and signing in.
import { ApiError, createApiClient, unwrap } from '@onboarding-automation/api-client';
import { field, form, h, link, paragraph, show } from './dom.ts';
import type { PagesConfig } from '../config.ts';
import { currentSession, endSession, saveSession } from './session.ts';

export const config: PagesConfig = JSON.parse(document.getElementById('config')!.textContent!);

/** Every call carries the signed-in session's token, read afresh each time. */
export const api = createApiClient({ baseUrl: config.apiUrl, token: () => currentSession()?.accessToken });

/** The signed-in user, with their accounts and invitations; undefined when signed out or the token no longer works. */
export async function signedInUser() {
  if (!currentSession()) return undefined;
  const { data, error, response } = await api.GET('/api/auth/me');
  if (response.status === 401) {
    endSession();
    return undefined;
  }
  if (error) throw new ApiError(response.status, error);
  return data;
}

/** The sign-in form; on success, `then` runs (by default the page is shown again, now signed in). */
export function signInForm(then: () => unknown = () => location.reload()): HTMLFormElement {
  return form([field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'username' }), field('Password', 'password', { type: 'password', required: true, autocomplete: 'current-password' })], 'Sign in', async ({ email, password }) => {
    const { session, user } = unwrap(await api.POST('/api/auth/login', { body: { email: email!, password: password! } }));
    saveSession({ accessToken: session.access_token, email: user.email, expiresAt: session.expires_at });
    then();
    return paragraph(`Signed in as ${user.email}.`);
  });
}

/** The page to show when signing in is needed first; once signed in, `then` runs (by default this page again). */
export function showSignIn(title: string, why: string, then?: () => unknown): void {
  show(
    title,
    paragraph(why),
    signInForm(then),
    paragraph(
      config.site === 'portal' ? link('/forgot-password', 'Forgot your password?') : link(`${config.portalUrl}/forgot-password`, 'Forgot your password?'),
      ' · ',
      link(`${config.dashboardUrl}/signup`, 'Create an account'),
    ),
  );
}

export const signOutButton = () =>
  h('button', {
    type: 'button',
    class: 'secondary',
    onclick: async () => {
      await api.POST('/api/auth/logout');
      endSession();
      location.reload();
    },
  }, 'Sign out');
