// Accounts and their people: the account view, members and roles,
// invitations, and the billing portal. Who may call each is its access rule.
import { idParam, route } from '../http/route.ts';
import { ROLES } from '../permissions.ts';

const accountParams = { type: 'object', required: ['accountId'], properties: { accountId: idParam } } as const;
const nullableString = { type: ['string', 'null'] } as const;
const role = { enum: ROLES } as const;

export const accountSummary = {
  type: 'object',
  required: ['accountId', 'role', 'companyName', 'portalSlug', 'plan', 'subscriptionStatus'],
  properties: {
    accountId: { type: 'string' },
    role: { ...role, description: "The caller's role in the account" },
    companyName: nullableString,
    portalSlug: nullableString,
    plan: { ...nullableString, description: 'The plan the account is billed for (starter, pro, enterprise, free), as the payment provider last told us' },
    subscriptionStatus: { ...nullableString, description: "The payment provider's subscription status: active, trialing, past_due, canceled, ..." },
  },
} as const;

/** A run of the account's, as its view shows it: its state and, once finished, the outcome per integration. */
const runOutcome = (what: string) => ({
  description: what,
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      required: ['runId', 'status'],
      properties: {
        runId: { type: 'string' },
        status: { enum: ['running', 'succeeded', 'failed'] },
        integrations: { type: 'object', additionalProperties: { enum: ['success', 'skipped', 'failed'] } },
        finishedAt: { type: 'string', format: 'date-time' },
      },
    },
  ],
} as const);

export const ACCOUNT_STATUSES = ['provisioning', 'active', 'needs_attention', 'offboarding', 'closed', 'erased'] as const;

const accountView = {
  type: 'object',
  required: [...accountSummary.required, 'status', 'companyUrl', 'storageLink', 'memberCount', 'onboarding', 'offboarding', 'createdAt'],
  properties: {
    ...accountSummary.properties,
    status: { enum: ACCOUNT_STATUSES, description: 'provisioning → active (or needs_attention) → offboarding → closed → erased; a closed account may be reopened' },
    companyUrl: nullableString,
    storageLink: { ...nullableString, description: 'The shared link of the client storage folder' },
    memberCount: { type: 'integer' },
    onboarding: runOutcome('The latest onboarding run: its state and, once finished, the outcome per integration'),
    offboarding: {
      description: 'The client leaving: why, when its run begins (the end of the grace period, for a subscription that ended), and that run',
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['reason', 'trigger', 'notBefore', 'run'],
          properties: {
            reason: { type: 'string' },
            trigger: { enum: ['request', 'subscription'] },
            notBefore: { type: 'string', format: 'date-time' },
            closedAt: { type: ['string', 'null'], format: 'date-time' },
            run: runOutcome('The offboarding run'),
          },
        },
      ],
    },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

const member = {
  type: 'object',
  required: ['userId', 'email', 'role', 'joinedAt', 'joinedVia'],
  properties: {
    userId: { type: 'string' },
    email: { type: 'string' },
    role,
    joinedAt: { type: 'string', format: 'date-time' },
    joinedVia: { enum: ['created', 'invitation', 'migration'] },
  },
} as const;

export const invitation = {
  type: 'object',
  required: ['invitationId', 'accountId', 'email', 'role', 'status', 'invitedBy', 'createdAt', 'expiresAt'],
  properties: {
    invitationId: { type: 'string' },
    accountId: { type: 'string' },
    email: { type: 'string' },
    role,
    status: { enum: ['pending', 'accepted', 'revoked', 'expired'] },
    invitedBy: {
      type: 'object',
      required: ['kind'],
      description: 'user (with userId and email), service (the internal API key), membership-sync, checkout or migration',
      properties: { kind: { type: 'string' }, userId: { type: 'string' }, email: { type: 'string' } },
    },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    acceptedAt: { type: 'string', format: 'date-time' },
    revokedAt: { type: 'string', format: 'date-time' },
  },
} as const;

const refused = {
  400: { description: 'Invalid input' },
  401: { description: 'No valid bearer token (unauthenticated)' },
  403: { description: 'Your role in this account does not allow it, or the internal API key (it grants no role) (forbidden)' },
  404: { description: 'No such account, or not one you belong to' },
} as const;

const email = { type: 'string', format: 'email', maxLength: 254 } as const;

/** What an erasure did, per place (a table, or a vendor): no personal data. */
const erasureAnswer = {
  type: 'object',
  required: ['accountId', 'status', 'places'],
  properties: {
    accountId: { type: 'string' },
    status: { enum: ['erased', 'closed'] },
    erasedAt: { type: 'string', format: 'date-time' },
    places: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['outcome', 'detail'],
        properties: { outcome: { enum: ['erased', 'kept', 'skipped', 'failed'] }, detail: { type: 'string' } },
      },
    },
  },
} as const;

/** What offboarding and reopening answer: the run, followed at its status URL. */
const lifecycleAnswer = {
  type: 'object',
  required: ['accountId', 'status'],
  properties: {
    accountId: { type: 'string' },
    status: {
      enum: ['scheduled', 'offboarding', 'closed', 'provisioning', 'active'],
      description: 'scheduled: waiting for its time; offboarding or closed: as the account is; provisioning: reopened, onboarding again; active: reopened, never onboarded',
    },
    notBefore: { type: 'string', format: 'date-time', description: 'When the offboarding run begins taking back' },
    executionId: { type: 'string', description: 'The run id' },
    statusUrl: { type: 'string', format: 'uri', description: "The run's answer: per integration, as an onboarding run's" },
  },
} as const;

export const accountRoutes = {
  openAccount: route({
    method: 'POST',
    path: '/api/accounts',
    operationId: 'openAccount',
    lambda: { handler: 'functions/accounts/open-account.ts' },
    summary: 'Open a new account, with the caller as its owner',
    tag: 'accounts',
    access: { who: 'user' },
    body: { type: 'object', additionalProperties: false, required: ['companyName'], properties: { companyName: { type: 'string', minLength: 1, maxLength: 200 } } },
    responses: {
      201: { description: 'The new account', schema: accountView },
      400: refused[400],
      401: refused[401],
      429: { description: 'You have opened RATE_LIMIT_ACCOUNTS accounts in the window; Retry-After says when to try again; nothing was made' },
    },
  }),
  getAccount: route({
    method: 'GET',
    path: '/api/accounts/{accountId}',
    params: accountParams,
    operationId: 'getAccount',
    lambda: { handler: 'functions/accounts/get-account.ts' },
    summary: 'The account: company, portal slug, plan and subscription status, latest onboarding outcome, member count',
    tag: 'accounts',
    access: { who: 'member', permission: 'read', account: { path: 'accountId' } },
    responses: { 200: { description: 'The account', schema: accountView }, ...refused },
  }),
  listMembers: route({
    method: 'GET',
    path: '/api/accounts/{accountId}/members',
    params: accountParams,
    operationId: 'listMembers',
    lambda: { handler: 'functions/accounts/list-members.ts' },
    summary: "The account's active members and their roles",
    tag: 'accounts',
    access: { who: 'member', permission: 'read', account: { path: 'accountId' } },
    responses: {
      200: { description: 'The members', schema: { type: 'object', required: ['members'], properties: { members: { type: 'array', items: member } } } },
      ...refused,
    },
  }),
  changeMemberRole: route({
    method: 'PATCH',
    path: '/api/accounts/{accountId}/members/{userId}',
    params: { type: 'object', required: ['accountId', 'userId'], properties: { accountId: idParam, userId: idParam } },
    operationId: 'changeMemberRole',
    lambda: { handler: 'functions/accounts/change-member-role.ts' },
    summary: "Change a member's role (owners only); the last owner cannot be demoted",
    tag: 'accounts',
    access: { who: 'member', permission: 'manage', account: { path: 'accountId' } },
    body: { type: 'object', additionalProperties: false, required: ['role'], properties: { role } },
    responses: {
      200: { description: 'The member with the new role', schema: member },
      ...refused,
      409: { description: 'The account would have no owner left (last_owner), or the membership changed meanwhile', codes: ['last_owner'] },
    },
  }),
  removeMember: route({
    method: 'DELETE',
    path: '/api/accounts/{accountId}/members/{userId}',
    params: { type: 'object', required: ['accountId', 'userId'], properties: { accountId: idParam, userId: idParam } },
    operationId: 'removeMember',
    lambda: { handler: 'functions/accounts/remove-member.ts' },
    summary: 'Remove a member (owners only); their access ends with their next request. The last owner cannot be removed',
    tag: 'accounts',
    access: { who: 'member', permission: 'manage', account: { path: 'accountId' } },
    responses: { 204: { description: 'Removed' }, ...refused, 409: { description: 'The last owner (last_owner)', codes: ['last_owner'] } },
  }),
  leaveAccount: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/leave',
    params: accountParams,
    operationId: 'leaveAccount',
    lambda: { handler: 'functions/accounts/leave-account.ts' },
    summary: 'Leave the account; the last owner cannot leave',
    tag: 'accounts',
    access: { who: 'member', permission: 'read', account: { path: 'accountId' } },
    responses: { 204: { description: 'Left' }, ...refused, 409: { description: 'The last owner (last_owner)', codes: ['last_owner'] } },
  }),
  listInvitations: route({
    method: 'GET',
    path: '/api/accounts/{accountId}/invitations',
    params: accountParams,
    operationId: 'listInvitations',
    lambda: { handler: 'functions/accounts/list-invitations.ts' },
    summary: "The account's invitations, newest first, with who invited whom and their state",
    tag: 'accounts',
    access: { who: 'member', permission: 'invite', account: { path: 'accountId' } },
    responses: {
      200: { description: 'The invitations', schema: { type: 'object', required: ['invitations'], properties: { invitations: { type: 'array', items: invitation } } } },
      ...refused,
    },
  }),
  createInvitation: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/invitations',
    params: accountParams,
    operationId: 'createInvitation',
    lambda: { handler: 'functions/accounts/create-invitation.ts' },
    summary: 'Invite an e-mail address to the account (owners and admins; only owners invite owners); the invitee gets an e-mail with a portal link, valid 7 days',
    tag: 'accounts',
    access: { who: 'member', permission: 'invite', account: { path: 'accountId' } },
    body: { type: 'object', additionalProperties: false, required: ['email'], properties: { email, role: { ...role, default: 'member' } } },
    responses: {
      201: { description: 'Invited; the e-mail is on its way', schema: invitation },
      ...refused,
      409: { description: 'Already a member (already_member), an open invitation exists, or was opened by a concurrent request (invitation_pending), or the person was removed meanwhile (membership_changed)', codes: ['already_member', 'invitation_pending', 'membership_changed'] },
      429: { description: 'The account, or you in all your accounts, sent RATE_LIMIT_INVITATIONS invitation e-mails in the window; Retry-After says when to try again; nothing was kept' },
      500: { description: 'The invitation e-mail could not be sent; nothing was kept' },
    },
  }),
  revokeInvitation: route({
    method: 'DELETE',
    path: '/api/accounts/{accountId}/invitations/{invitationId}',
    params: { type: 'object', required: ['accountId', 'invitationId'], properties: { accountId: idParam, invitationId: idParam } },
    operationId: 'revokeInvitation',
    lambda: { handler: 'functions/accounts/revoke-invitation.ts' },
    summary: 'Revoke a pending invitation; its link stops working',
    tag: 'accounts',
    access: { who: 'member', permission: 'invite', account: { path: 'accountId' } },
    responses: { 200: { description: 'Revoked', schema: invitation }, ...refused, 409: { description: 'Not pending any more (invitation_not_pending)', codes: ['invitation_not_pending'] } },
  }),
  acceptInvitation: route({
    method: 'POST',
    path: '/api/invitations/{invitationId}/accept',
    params: { type: 'object', required: ['invitationId'], properties: { invitationId: idParam } },
    operationId: 'acceptInvitation',
    lambda: { handler: 'functions/accounts/accept-invitation.ts' },
    summary: 'Accept an invitation sent to your verified e-mail address; you are a member from your next request',
    tag: 'accounts',
    access: { who: 'user' },
    responses: {
      200: {
        description: 'Accepted',
        schema: { type: 'object', required: ['accountId', 'role'], properties: { accountId: { type: 'string' }, role } },
      },
      401: refused[401],
      403: { description: 'Sent to another address (invitation_not_for_you), or your address is not verified (email_not_confirmed)', codes: ['invitation_not_for_you', 'email_not_confirmed'] },
      404: { description: 'No such invitation' },
      409: {
        description: 'Already used (invitation_already_used), or the account is closing or closed (account_closed: the invitation is revoked)',
        codes: ['invitation_already_used', 'account_closed'],
      },
      410: { description: 'Expired (invitation_expired) or revoked (invitation_revoked)', codes: ['invitation_expired', 'invitation_revoked'] },
    },
  }),
  offboardAccount: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/offboard',
    params: accountParams,
    operationId: 'offboardAccount',
    lambda: { handler: 'functions/accounts/offboard-account.ts' },
    summary:
      "Close the account now: its run takes back what onboarding gave at each vendor (tasks archived, storage link revoked and folder archived, CRM lead set to former client, team told, owners e-mailed); members keep reading it. A second call answers the first's run",
    tag: 'accounts',
    access: { who: 'member', permission: 'close', account: { path: 'accountId' }, adminKey: true },
    body: { type: 'object', additionalProperties: false, required: ['reason'], properties: { reason: { type: 'string', minLength: 1, maxLength: 500 } } },
    responses: {
      202: { description: 'The offboarding run, started (or the one already under way)', schema: lifecycleAnswer },
      200: { description: 'The account is closed already: its offboarding run', schema: lifecycleAnswer },
      ...refused,
      409: { description: 'The account is still being onboarded (onboarding_running), or was erased (account_closed)', codes: ['onboarding_running', 'account_closed'] },
    },
  }),
  reopenAccount: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/reopen',
    params: accountParams,
    operationId: 'reopenAccount',
    lambda: { handler: 'functions/accounts/reopen-account.ts' },
    summary: 'Open a closed account again: it is onboarded again with the details it kept, and each integration restores what was archived',
    tag: 'accounts',
    access: { who: 'member', permission: 'close', account: { path: 'accountId' }, adminKey: true },
    responses: {
      202: { description: 'Reopened: its onboarding run, started', schema: lifecycleAnswer },
      200: { description: 'Reopened; never onboarded, it is active again with no run', schema: lifecycleAnswer },
      ...refused,
      409: { description: 'The account is not closed (account_not_closed)', codes: ['account_not_closed'] },
    },
  }),
  eraseAccount: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/erase',
    params: accountParams,
    operationId: 'eraseAccount',
    lambda: { handler: 'functions/accounts/erase-account.ts' },
    summary:
      "Erase a closed account's personal data, from our tables and from the vendors that hold it (the CRM lead's contacts; the storage folder when `storage` is true); identity users in no other account are deleted. Leaves an audit record without personal data. Repeating it finishes what failed",
    tag: 'accounts',
    access: { who: 'admin' },
    body: { type: 'object', additionalProperties: false, properties: { storage: { type: 'boolean', default: false, description: "Delete the client's archived storage folder too" } } },
    responses: {
      200: { description: 'Erased: what was erased where', schema: erasureAnswer },
      400: refused[400],
      401: { description: 'No admin key or signed-in admin' },
      403: { description: 'Not an admin' },
      404: { description: 'No such account' },
      409: { description: 'The account is not closed: close it first (account_not_closed)', codes: ['account_not_closed'] },
      502: { description: 'A vendor failed: what was done is recorded, nothing of ours was erased yet; call again to finish (erasure_incomplete)', codes: ['erasure_incomplete'] },
    },
  }),
  billingPortal: route({
    method: 'POST',
    path: '/api/accounts/{accountId}/billing-portal',
    params: accountParams,
    operationId: 'billingPortal',
    lambda: { handler: 'functions/accounts/billing-portal.ts' },
    summary: "A session of the payment provider's customer portal for the account: change plan, update the card, cancel",
    tag: 'accounts',
    access: { who: 'member', permission: 'billing', account: { path: 'accountId' } },
    responses: {
      200: { description: 'Send the browser to url', schema: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } } },
      ...refused,
      409: { description: 'The account has no customer at the payment provider yet: choose a plan first (no_billing_customer)', codes: ['no_billing_customer'] },
      500: { description: 'The payment provider failed or is not configured' },
    },
  }),
};
