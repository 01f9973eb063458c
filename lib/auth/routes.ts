import { accountSummary, invitation } from '../accounts/routes.ts';
import { route } from '../http/route.ts';
import { PASSWORD_RULE } from './password-policy.ts';

const email = { type: 'string', format: 'email', maxLength: 254 } as const;
// The password rule (characters, classes, bytes) is checked in code, where it
// can count bytes; the schema only bounds the size of what is accepted.
const newPassword = { type: 'string', maxLength: 1024, description: PASSWORD_RULE } as const;

const user = {
  type: 'object',
  required: ['id', 'email', 'email_confirmed', 'app_metadata', 'metadata'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    email_confirmed: { type: 'boolean' },
    app_metadata: { type: 'object', description: 'Set by the identity provider and the service; read only for the user' },
    metadata: { type: 'object', description: 'Given at signup: name, companyName' },
  },
} as const;

const session = {
  type: 'object',
  required: ['access_token', 'refresh_token', 'token_type', 'expires_in', 'expires_at'],
  properties: {
    access_token: { type: 'string', description: 'Send as Authorization: Bearer <access_token>' },
    refresh_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer', description: 'Seconds' },
    expires_at: { type: 'integer', description: 'Epoch seconds' },
  },
} as const;

const done = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { const: true }, message: { type: 'string' } },
} as const;

const error = (description: string, codes?: readonly string[]) => ({ description, ...(codes ? { codes } : {}) });
const rateLimited = error('Too many requests from this address or for this e-mail (rate_limited); see Retry-After');

export const authRoutes = {
  signup: route({
    method: 'POST',
    path: '/api/auth/signup',
    operationId: 'signup',
    lambda: { handler: 'functions/auth/signup.ts' },
    summary: 'Register a user and send the e-mail verification link; the session stays null until the address is verified',
    tag: 'auth',
    access: { who: 'anyone' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'password'],
      properties: {
        email,
        password: newPassword,
        metadata: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string', maxLength: 200 }, companyName: { type: 'string', maxLength: 200 } },
        },
      },
    },
    responses: {
      201: {
        description: 'Registered; a verification e-mail is on its way',
        schema: { type: 'object', required: ['user', 'session'], properties: { user, session: { type: 'null' } } },
      },
      400: error(
        "Invalid input (invalid_request), a password that breaks the rule (weak_password), or an address the identity provider's mailer may not write to (email_address_not_authorized)",
        ['weak_password', 'email_address_not_authorized'],
      ),
      409: error(
        'The e-mail address is already registered, verified or not (email_already_registered). A verified one does not change; an unverified one is contested: its earlier verification links stop working, and the address is e-mailed a link to finish the signup by choosing the password',
        ['email_already_registered'],
      ),
      429: rateLimited,
    },
  }),

  login: route({
    method: 'POST',
    path: '/api/auth/login',
    operationId: 'login',
    lambda: { handler: 'functions/auth/login.ts' },
    summary: 'Sign in with e-mail and password',
    tag: 'auth',
    access: { who: 'anyone' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'password'],
      properties: { email, password: { type: 'string', minLength: 1, maxLength: 1024 } },
    },
    responses: {
      200: { description: 'Signed in', schema: { type: 'object', required: ['session', 'user'], properties: { session, user } } },
      400: error('Invalid input'),
      401: error(
        'Wrong e-mail or password (invalid_credentials); an unknown e-mail gets the same answer, and so does every login of an address past RATE_LIMIT_LOGIN_FAILURES failed logins in its window, the right password included',
        ['invalid_credentials'],
      ),
      403: error('The e-mail address is not verified yet (email_not_confirmed)', ['email_not_confirmed']),
      429: rateLimited,
    },
  }),

  logout: route({
    method: 'POST',
    path: '/api/auth/logout',
    operationId: 'logout',
    lambda: { handler: 'functions/auth/logout.ts' },
    summary: "End every session of the token's user: refresh tokens are revoked and the access token stops working",
    tag: 'auth',
    access: { who: 'user' },
    responses: {
      200: { description: 'Signed out', schema: done },
      401: error('Bearer token missing, malformed, expired or already revoked (unauthenticated)'),
    },
  }),

  me: route({
    method: 'GET',
    path: '/api/auth/me',
    operationId: 'currentUser',
    lambda: { handler: 'functions/auth/me.ts' },
    summary: 'The signed-in user, the accounts they belong to (role, plan, subscription status) and the invitations waiting for them',
    tag: 'auth',
    access: { who: 'user' },
    responses: {
      200: {
        description: 'The user of the bearer token',
        schema: {
          ...user,
          required: [...user.required, 'accounts', 'invitations'],
          properties: {
            ...user.properties,
            accounts: { type: 'array', description: 'Every account the user is an active member of', items: accountSummary },
            invitations: {
              type: 'array',
              description: 'Open invitations to the verified address; accept with POST /api/invitations/{invitationId}/accept',
              items: { ...invitation, properties: { ...invitation.properties, companyName: { type: ['string', 'null'] } } },
            },
          },
        },
      },
      401: error('Bearer token missing, malformed, expired or revoked (unauthenticated)'),
    },
  }),

  forgotPassword: route({
    method: 'POST',
    path: '/api/auth/forgot-password',
    operationId: 'forgotPassword',
    lambda: { handler: 'functions/auth/forgot-password.ts' },
    summary: 'E-mail a password-reset link (valid 1 hour); the answer is the same whether or not the account exists',
    tag: 'auth',
    access: { who: 'anyone' },
    body: { type: 'object', additionalProperties: false, required: ['email'], properties: { email } },
    responses: {
      200: { description: 'Generic acknowledgement', schema: done },
      400: error('Invalid e-mail address'),
      429: rateLimited,
      500: error('The reset e-mail could not be sent'),
    },
  }),

  resetPassword: route({
    method: 'POST',
    path: '/api/auth/reset-password',
    operationId: 'resetPassword',
    lambda: { handler: 'functions/auth/reset-password.ts' },
    summary: 'Set a new password with the recovery token of a reset link (from the body, or as Authorization: Bearer)',
    tag: 'auth',
    access: { who: 'anyone' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['password'],
      properties: {
        password: newPassword,
        token: { type: 'string', minLength: 1, maxLength: 8192, description: 'The access_token from the reset link; or send it as a bearer token' },
      },
    },
    responses: {
      200: { description: 'Password changed; every session of the user has ended', schema: done },
      400: error('Token missing, invalid, used or expired (invalid_token), or a password that breaks the rule (weak_password)', ['invalid_token', 'weak_password']),
      403: error("The account's security settings refuse a change from a reset link alone, e.g. it has a second sign-in factor (password_change_refused); nothing changed", [
        'password_change_refused',
      ]),
      429: rateLimited,
      500: error('The identity provider failed to update the password'),
    },
  }),

  verifyEmail: route({
    method: 'POST',
    path: '/api/verify-email',
    operationId: 'verifyEmail',
    lambda: { handler: 'functions/auth/verify-email.ts' },
    summary: 'Consume an e-mail verification token and say where the user goes next',
    tag: 'auth',
    access: { who: 'anyone' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['token'],
      properties: { token: { type: 'string', minLength: 1, maxLength: 512 } },
    },
    responses: {
      200: {
        description: "Verified: redirectTo is the portal's /<client-slug>, or its /onboarding when no company is known yet",
        schema: {
          type: 'object',
          required: ['success', 'email', 'redirectTo', 'portalSlug'],
          properties: {
            success: { const: true },
            email: { type: 'string' },
            redirectTo: { type: 'string', format: 'uri' },
            portalSlug: { type: ['string', 'null'] },
          },
        },
      },
      400: error('The token is wrong, already used or expired, or was issued before a later signup contested the registration (invalid_token); nothing changed', ['invalid_token']),
    },
  }),
};
