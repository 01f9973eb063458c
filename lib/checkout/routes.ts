import { idParam, route } from '../http/route.ts';
import { CHECKOUT_PERMISSION } from '../payments/payments.ts';
import { PAID_PLANS, PLANS } from '../payments/plans.ts';

export const checkoutRoutes = {
  checkoutRedirect: route({
    method: 'GET',
    path: '/api/checkout',
    operationId: 'checkoutRedirect',
    lambda: { handler: 'functions/checkout/checkout-redirect.ts' },
    summary: "Send a browser to the hosted checkout page of the plan, or to the dashboard's signup first",
    tag: 'checkout',
    access: { who: 'member', permission: CHECKOUT_PERMISSION, account: { named: 'query' }, anonymous: 'pass' },
    // Deliberately loose: a missing or unknown plan is refused only once the caller is known
    // (an anonymous caller is sent to sign up whatever the plan).
    query: {
      type: 'object',
      properties: {
        plan: { type: 'string', maxLength: 40, description: `One of: ${PLANS.join(', ')}` },
        accountId: { ...idParam, description: 'The account to buy for; default: your only account (a first one is opened if you have none)' },
      },
    },
    responses: {
      302: { description: 'No valid bearer token (any plan): to {dashboard}/signup?redirect=<this request, URL-encoded>', redirect: true },
      303: { description: "A paid plan: to the provider's hosted checkout page. free: recorded, to {dashboard}/dashboard", redirect: true },
      400: {
        description:
          'Signed in, but the plan is missing or unknown (invalid_plan), or not sold here (plan_unavailable); or you belong to several accounts and named none (account_required)',
        codes: ['invalid_plan', 'plan_unavailable'],
      },
      403: { description: 'The e-mail address is not confirmed yet (email_not_confirmed), or your role in the account does not include billing', codes: ['email_not_confirmed'] },
      404: { description: 'No such account, or not one you belong to' },
      500: { description: 'The payment provider failed or is not configured' },
    },
  }),

  checkoutSession: route({
    method: 'POST',
    path: '/api/checkout/session',
    operationId: 'createCheckoutSession',
    lambda: { handler: 'functions/checkout/checkout-session.ts' },
    summary: 'Start a hosted subscription checkout for an e-mail address (public); the account is linked when payment completes',
    tag: 'checkout',
    access: { who: 'anyone' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['planId', 'email'],
      properties: {
        planId: { enum: PAID_PLANS },
        email: { type: 'string', format: 'email', maxLength: 254 },
      },
    },
    responses: {
      200: {
        description: "The provider's hosted checkout page",
        schema: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } },
      },
      400: { description: 'Invalid e-mail or unknown plan (invalid_request), or a plan not sold here (plan_unavailable)', codes: ['plan_unavailable'] },
      429: { description: 'Too many checkout sessions from this address (rate_limited); see Retry-After' },
      500: { description: 'The payment provider failed or is not configured' },
    },
  }),
};
