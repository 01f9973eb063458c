import { idParam, route, type JSONSchema } from '../http/route.ts';
import { onboardingBody } from './intake.ts';

// The pieces of a run's answer, shared with enhanced onboarding (lib/enhanced-onboarding/routes.ts).
export const outcome = { enum: ['success', 'skipped', 'failed'] } as const;
export const integrationErrors = {
  type: 'array',
  items: {
    type: 'object',
    required: ['integration', 'message', 'context'],
    properties: { integration: { type: 'string' }, message: { type: 'string' }, context: { type: 'object' } },
  },
} as const;
const result = {
  type: 'object',
  required: ['success', 'accountId', 'portalSlug', 'integrations'],
  properties: {
    success: { type: 'boolean' },
    accountId: { type: 'string', format: 'uuid' },
    portalSlug: { type: 'string' },
    integrations: {
      type: 'object',
      required: ['clickup', 'dropbox', 'resend', 'slack', 'close'],
      properties: { clickup: outcome, dropbox: outcome, resend: outcome, slack: outcome, close: outcome },
    },
    details: { type: 'object', description: 'Per integration: what was created, or why it was skipped' },
    executionId: { type: 'string', description: 'The Step Functions execution name of the run' },
    errors: integrationErrors,
  },
} as const;
export const running = {
  type: 'object',
  required: ['status', 'accountId', 'executionId', 'statusUrl'],
  properties: {
    status: { const: 'running' },
    accountId: { type: 'string' },
    executionId: { type: 'string', description: 'The Step Functions execution name' },
    statusUrl: { type: 'string', format: 'uri' },
  },
} as const;

/** The answers of a submitted portal form (onboarding-v2, and enhanced onboarding): the run's result, or 202 while it runs. */
export const submissionAnswers = (result: JSONSchema, whenDone: string) => ({
  200: { description: whenDone, schema: result },
  202: { description: 'Still running after the wait; poll statusUrl', schema: running },
  400: { description: 'Missing e-mail or company name, or an invalid field (metadata over 16 KB as JSON included)' },
  401: { description: 'Neither the internal API key nor the bearer token of the user being onboarded' },
  413: { description: 'The body is over 256 KB' },
  429: {
    description:
      'Too many submissions (onboarding-v2 and enhanced together) by this user, with this service key, or for this account; enhanced runs are also limited per account per day. Retry-After says when to try again',
  },
  500: { description: 'An integration failed (success false, errors with context; recorded for follow-up), or an internal error', codes: ['integrations_failed'] },
  503: {
    description: 'The internal service onboarding an address without a named account, held while an upgraded stage copies its member records (member_records_copying, with Retry-After)',
    codes: ['member_records_copying'],
  },
});

export const onboardingRoutes = {
  onboardingV2: route({
    method: 'POST',
    path: '/api/onboarding-v2',
    operationId: 'onboardingV2',
    lambda: { handler: 'functions/onboarding/onboarding-v2.ts' },
    summary: 'Onboard a company that completed the portal form: records, portal slug, and every integration',
    tag: 'onboarding',
    access: { who: 'member', permission: 'onboard', account: { named: 'body' }, serviceKey: true },
    body: onboardingBody,
    responses: submissionAnswers(result, 'Every integration succeeded or was skipped (not configured)'),
  }),
  onboardingRun: route({
    method: 'GET',
    path: '/api/onboarding/runs/{runId}',
    params: { type: 'object', required: ['runId'], properties: { runId: idParam } },
    operationId: 'onboardingRun',
    lambda: { handler: 'functions/onboarding/onboarding-run.ts' },
    summary: 'The answer of an onboarding run: the same body and status the onboarding endpoint gives, or 202 while it runs',
    tag: 'onboarding',
    access: { who: 'member', permission: 'read', account: { runPath: 'runId' }, serviceKey: true },
    responses: {
      200: { description: 'Finished: every integration succeeded or was skipped', schema: result },
      202: { description: 'Still running', schema: running },
      401: { description: 'No valid credentials' },
      404: { description: 'No such run (or not yours)' },
      500: {
        description: 'Finished with failed integrations, stopped before recording an outcome (onboarding_stopped), or never started (onboarding_not_started: submit again)',
        codes: ['integrations_failed', 'onboarding_stopped', 'onboarding_not_started'],
      },
    },
  }),
};
