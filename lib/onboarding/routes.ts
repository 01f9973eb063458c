import { idParam, route, type JSONSchema } from '../http/route.ts';
import { workflows } from '../provisioning/registry.ts';
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
/** A workflow's answer's integrations: each of the registry's, in the workflow's order, with its outcome. */
export function integrationOutcomes<const K extends string>(keys: readonly K[]) {
  return { type: 'object', required: [...keys], properties: Object.fromEntries(keys.map((key) => [key, outcome])) as Record<K, typeof outcome> } as const;
}

const result = {
  type: 'object',
  required: ['success', 'accountId', 'portalSlug', 'integrations'],
  properties: {
    success: { type: 'boolean' },
    accountId: { type: 'string', format: 'uuid' },
    portalSlug: { type: 'string' },
    integrations: integrationOutcomes(workflows.onboarding.integrations),
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
    integrations: {
      type: 'object',
      description: 'Where each integration stands: success, skipped, failed, pending, or "waiting for <vendor> until <time>" while a vendor sets the pace',
      additionalProperties: { type: 'string' },
    },
  },
} as const;

/** One company of a batch: the portal form's fields and aliases, without an account to name (each row is a client of its own). */
const { accountId: _accountId, ...rowFields } = onboardingBody.properties;
export const batchRow = { ...onboardingBody, properties: rowFields } as const;

const rowProblems = {
  type: 'array',
  items: {
    type: 'object',
    required: ['line', 'errors'],
    properties: {
      line: { type: 'integer', description: 'The row\'s place in the JSON list (1 for the first), or its line in the CSV file (2 for the first after the header)' },
      errors: { type: 'array', items: { type: 'object', required: ['message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    },
  },
} as const;

const batchTaken = {
  type: 'object',
  required: ['batchId', 'queued', 'invalid', 'statusUrl'],
  properties: {
    batchId: { type: 'string' },
    queued: { type: 'integer', description: 'Rows taken; each becomes an onboarding run' },
    invalid: rowProblems,
    statusUrl: { type: 'string', format: 'uri' },
  },
} as const;

const rowState = { enum: ['queued', 'running', 'waiting', 'done', 'held', 'not_started'] } as const;
const batchViewSchema = {
  type: 'object',
  required: ['batchId', 'createdAt', 'rows', 'invalid', 'counts', 'items'],
  properties: {
    batchId: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    rows: { type: 'integer', description: 'Rows taken' },
    invalid: rowProblems,
    counts: { type: 'object', description: 'Rows by state', additionalProperties: { type: 'integer' } },
    estimatedCompletion: {
      type: 'string',
      format: 'date-time',
      description: "When the last run should finish: the busiest vendor's calls still to make, at the pace its configured limit allows; absent once every run has ended",
    },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['line', 'email', 'state'],
        properties: {
          line: { type: 'integer' },
          email: { type: 'string' },
          state: rowState,
          runId: { type: 'string', description: 'Its run (GET /api/onboarding/runs/{runId})' },
          accountId: { type: 'string' },
          error: { type: 'string', description: 'Why a row could not be started' },
        },
      },
    },
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
  onboardingBatch: route({
    method: 'POST',
    path: '/api/onboarding/batch',
    operationId: 'onboardingBatch',
    summary:
      'Import clients: up to 500 companies, as JSON ({ companies: [...] }) or CSV (text/csv, a header line of field names), each row checked on its own and each valid one an ordinary onboarding run, started in order and paced to the vendors',
    tag: 'onboarding',
    access: { who: 'admin', serviceKey: true },
    lambda: { handler: 'functions/onboarding/onboarding-batch.ts' },
    rawBody: true,
    rows: { key: 'companies', schema: batchRow, max: 500 },
    responses: {
      202: { description: 'Taken: the valid rows are queued; the refused ones are listed by line (their place in the list, or their line in the CSV file)', schema: batchTaken },
      400: {
        description: 'No valid row (no_valid_rows, each refused by line), no rows, over 500 rows (too_many_rows), malformed JSON or CSV, or a CSV column no row takes',
        codes: ['no_valid_rows', 'no_rows', 'too_many_rows', 'malformed_json', 'malformed_csv', 'invalid_request'],
      },
      401: { description: 'Neither the internal API key, the admin key nor an admin user\'s bearer token' },
      403: { description: 'Signed in, but not an admin' },
      413: { description: 'The body is over 256 KB' },
      415: { description: 'Neither application/json nor text/csv', codes: ['unsupported_media_type'] },
      429: { description: 'Too many submissions with this key, or by this user; Retry-After says when to try again' },
    },
  }),
  onboardingBatchStatus: route({
    method: 'GET',
    path: '/api/onboarding/batches/{batchId}',
    params: { type: 'object', required: ['batchId'], properties: { batchId: idParam } },
    operationId: 'onboardingBatchStatus',
    summary: 'Where a batch stands: its rows by state (queued, running, waiting on a vendor, done, held, not started), each row, and when the last run should finish',
    tag: 'onboarding',
    access: { who: 'admin', serviceKey: true },
    lambda: { handler: 'functions/onboarding/onboarding-batch-status.ts' },
    responses: {
      200: { description: 'The batch', schema: batchViewSchema },
      401: { description: 'Neither the internal API key, the admin key nor an admin user\'s bearer token' },
      403: { description: 'Signed in, but not an admin' },
      404: { description: 'No such batch', codes: ['batch_not_found'] },
    },
  }),
};

