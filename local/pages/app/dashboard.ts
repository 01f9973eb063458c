// The dashboard's pages: /signup, /login, and /dashboard (also / , where the
// payment provider sends the browser back after checkout).
import { ApiError, unwrap, type DataOf } from '@onboarding-automation/api-client';
import { field, form, h, link, paragraph, problem, show } from './dom.ts';
import { api, config, showSignIn, signedInUser, signOutButton } from './context.ts';

type Me = DataOf<'currentUser'>;
type Account = Me['accounts'][number];

const PAID_PLANS = ['starter', 'pro', 'enterprise'] as const;
type PaidPlan = (typeof PAID_PLANS)[number];
const isPaidPlan = (plan: string | null | undefined): plan is PaidPlan => PAID_PLANS.includes(plan as PaidPlan);

/** /signup: register; ?redirect= is where the API sent a browser that was not signed in (GET /api/checkout?plan=...). */
export function signupPage(params: URLSearchParams): void {
  const plan = planOfRedirect(params.get('redirect'));
  const next = plan ? `/dashboard?plan=${plan}` : '/dashboard';
  show(
    'Create your account',
    plan ? paragraph(`You chose the ${plan} plan. Sign up and confirm your address; then sign in to pay for it.`) : null,
    form(
      [
        field('E-mail', 'email', { type: 'email', required: true, autocomplete: 'username' }),
        field('Password', 'password', { type: 'password', required: true, autocomplete: 'new-password' }),
        field('Your name', 'name', { autocomplete: 'name' }),
        field('Company', 'companyName', { autocomplete: 'organization' }),
      ],
      'Sign up',
      async ({ email, password, name, companyName }) => {
        const metadata = { ...(name ? { name } : {}), ...(companyName ? { companyName } : {}) };
        unwrap(await api.POST('/api/auth/signup', { body: { email: email!, password: password!, ...(Object.keys(metadata).length ? { metadata } : {}) } }));
        return [paragraph(`We sent a confirmation link to ${email}. Open it, then `, link(`/login?next=${encodeURIComponent(next)}`, 'sign in'), '.')];
      },
    ),
    paragraph('Already registered? ', link(`/login?next=${encodeURIComponent(next)}`, 'Sign in')),
  );
}

/** The plan of an API checkout URL (the redirect signup is given), if it names a paid one. */
function planOfRedirect(redirect: string | null): PaidPlan | undefined {
  if (!redirect) return undefined;
  try {
    const url = new URL(redirect);
    const plan = url.searchParams.get('plan');
    return url.origin === new URL(config.apiUrl).origin && isPaidPlan(plan) ? plan : undefined;
  } catch {
    return undefined;
  }
}

/** /dashboard and /: the accounts, their plans, and the outcome of a checkout the provider returned from. */
export async function dashboardPage(params: URLSearchParams): Promise<void> {
  const checkout = params.get('checkout');
  const banner =
    checkout === 'success'
      ? h('p', { class: 'notice', id: 'checkout-outcome' }, 'Payment received. Your plan shows below once the payment provider has confirmed it.')
      : checkout === 'canceled'
        ? h('p', { class: 'notice', id: 'checkout-outcome' }, `Checkout canceled: nothing was charged${params.get('plan') ? ` for the ${params.get('plan')} plan` : ''}.`)
        : null;
  const me = await signedInUser();
  if (!me) {
    showSignIn('Dashboard', 'Sign in to see your accounts and plans.');
    if (banner) document.querySelector('h1')!.after(banner);
    return;
  }
  const chosen = params.get('plan');
  const view = h('div', {});
  show(`Dashboard`, paragraph(`Signed in as ${me.email} `, signOutButton()), banner, view);
  renderAccounts(view, me, isPaidPlan(chosen) ? chosen : undefined);

  // Back from a payment: the plan is recorded when the provider's event arrives; until then, ask again.
  if (checkout === 'success') {
    let current: Me | undefined = me;
    for (let attempt = 0; current && attempt < 60; attempt++) {
      const paid = current.accounts.find(isPaying);
      if (paid) {
        banner!.textContent = `Payment confirmed: ${paid.companyName ?? 'your account'} is on the ${paid.plan} plan.`;
        return renderAccounts(view, current);
      }
      // Bought while in no account: the purchase opens one, whose owner the buyer becomes by accepting its invitation.
      if (current.invitations.length > me.invitations.length) {
        banner!.textContent = 'Payment confirmed: it opened a new account. Accept its invitation below to manage it.';
        return renderAccounts(view, current);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      current = await signedInUser();
    }
    banner!.textContent = 'Payment received, but no plan has been confirmed yet: reload this page in a moment.';
  }
}

const isPaying = (account: Account) => isPaidPlan(account.plan) && (account.subscriptionStatus === 'active' || account.subscriptionStatus === 'trialing');

function renderAccounts(view: HTMLElement, me: Me, chosen?: PaidPlan): void {
  view.replaceChildren(h(
    'div',
    {},
    h('h2', {}, 'Your accounts'),
    me.accounts.length
      ? h(
          'table',
          { id: 'accounts' },
          h('thead', {}, h('tr', {}, ['Company', 'Your role', 'Plan', 'Subscription', 'Portal', ''].map((t) => h('th', {}, t)))),
          h('tbody', {}, me.accounts.map(accountRow)),
        )
      : paragraph('None yet: choose a plan, or complete the onboarding form on the ', link(`${config.portalUrl}/onboarding`, 'client portal'), '.'),
    me.invitations.length ? h('h2', {}, 'Invitations') : null,
    me.invitations.map(invitationRow),
    // A plan is changed or cancelled in the provider's billing portal: a second checkout would start a second subscription.
    ...(me.accounts.some(isPaying)
      ? [h('h2', {}, 'Your plan'), paragraph('To change or cancel it, use Manage billing.')]
      : [h('h2', {}, 'Choose a plan'), h('p', { class: 'plans' }, PAID_PLANS.map((plan) => planButton(me, plan, plan === chosen)))]),
  ));
}

function accountRow(account: Account): HTMLElement {
  const portal = account.portalSlug ? link(`${config.portalUrl}/${account.portalSlug}`, account.portalSlug) : '—';
  const manage =
    account.plan && (account.role === 'owner' || account.role === 'admin')
      ? h('button', { type: 'button', class: 'secondary', onclick: (e) => openBillingPortal(account, e.target as HTMLElement) }, 'Manage billing')
      : null;
  return h(
    'tr',
    { 'data-account': account.accountId },
    h('td', {}, account.companyName ?? '(no name yet)'),
    h('td', {}, account.role),
    h('td', { class: 'plan' }, account.plan ?? 'none'),
    h('td', {}, account.subscriptionStatus ?? '—'),
    h('td', {}, portal),
    h('td', {}, manage),
  );
}

async function openBillingPortal(account: Account, button: HTMLElement): Promise<void> {
  const { data, error, response } = await api.POST('/api/accounts/{accountId}/billing-portal', { params: { path: { accountId: account.accountId } } });
  if (data) location.assign(data.url);
  else button.after(problem(new ApiError(response.status, error)));
}

function invitationRow(invitation: Me['invitations'][number]): HTMLElement {
  return paragraph(
    `${invitation.companyName ?? 'An account'} invites you as ${invitation.role}. `,
    link(`${config.portalUrl}/invitations/${invitation.invitationId}`, 'Open the invitation'),
  );
}

/**
 * A paid plan's button. GET /api/checkout redirects with 303, which a page
 * holding its token in script cannot follow with the token, so the page asks
 * for the session's URL (POST /api/checkout/session) for the signed-in
 * address and sends the browser there; the payment is linked to the account
 * that address owns when the provider reports it.
 */
function planButton(me: Me, plan: PaidPlan, chosen: boolean): HTMLElement {
  const button = h('button', { type: 'button', 'data-plan': plan, class: chosen ? 'chosen' : undefined }, chosen ? `Continue with ${plan}` : `Choose ${plan}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    const { data, error, response } = await api.POST('/api/checkout/session', { body: { planId: plan, email: me.email } });
    if (data) return location.assign(data.url);
    button.disabled = false;
    button.after(problem(new ApiError(response.status, error)));
  });
  return button;
}
