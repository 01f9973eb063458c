// The reference pages' entry: one script for the dashboard's and the portal's
// pages, which picks the page from the site and the path.
import { config, showSignIn } from './context.ts';
import { dashboardPage, signupPage } from './dashboard.ts';
import { problem, show } from './dom.ts';
import { clientHome, forgotPasswordPage, invitationPage, onboardingPage, portalHome, resetPasswordPage, verifyPage } from './portal.ts';

async function route(path: string, params: URLSearchParams): Promise<void> {
  if (path === '/login') return loginPage(params);
  if (config.site === 'dashboard') {
    if (path === '/signup') return signupPage(params);
    if (path === '/' || path === '/dashboard') return dashboardPage(params);
  } else {
    if (path === '/') return portalHome();
    if (path === '/verify') return verifyPage(params);
    if (path === '/forgot-password') return forgotPasswordPage();
    if (path === '/reset-password') return resetPasswordPage();
    if (path === '/onboarding') return onboardingPage();
    const invitation = /^\/invitations\/([A-Za-z0-9-]+)$/.exec(path);
    if (invitation) return invitationPage(invitation[1]!);
    const slug = /^\/([a-z0-9]+(?:-[a-z0-9]+)*)$/.exec(path);
    if (slug) return clientHome(slug[1]!);
  }
  show('Not found', `No page at ${path}.`);
}

/** /login?next=<path on this site>. */
function loginPage(params: URLSearchParams): void {
  const next = params.get('next');
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : config.site === 'dashboard' ? '/dashboard' : '/';
  showSignIn('Sign in', `Sign in to the ${config.site === 'dashboard' ? 'dashboard' : 'client portal'}.`, () => location.assign(target));
}

route(location.pathname, new URLSearchParams(location.search)).catch((error: unknown) => show('Something went wrong', problem(error)));
