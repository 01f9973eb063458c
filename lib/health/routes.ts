import { route } from '../http/route.ts';

const liveness = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' }, service: { type: 'string' }, stage: { type: 'string' }, time: { type: 'string' } },
} as const;

const check = {
  type: 'object',
  required: ['reachable'],
  properties: {
    configured: { type: 'boolean' },
    mode: { type: 'string' },
    endpoint: { type: 'string', description: 'Origin only; never a credential-bearing URL' },
    reachable: { type: ['boolean', 'null'], description: 'null when not configured' },
    latencyMs: { type: 'number' },
    error: { type: 'string' },
  },
} as const;

const statusReport = {
  type: 'object',
  required: ['status', 'checkedAt'],
  properties: {
    status: { enum: ['ok', 'degraded', 'down'] },
    checkedAt: { type: 'string', description: 'When the probes ran: they run at most once per 30 s, whatever the traffic' },
    dependencies: { type: 'object', additionalProperties: check, description: 'Admins only' },
    integrations: { type: 'object', additionalProperties: check, description: 'Admins only' },
  },
} as const;

export const healthRoutes = {
  health: route({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    lambda: { handler: 'functions/health/health.ts', memorySize: 256 },
    summary: 'Liveness check of the running instance',
    tag: 'health',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The service answers', schema: liveness } },
  }),
  healthz: route({
    method: 'GET',
    path: '/healthz',
    operationId: 'healthz',
    lambda: { handler: 'functions/health/healthz.ts', memorySize: 256 },
    summary: 'Basic liveness, no dependencies',
    tag: 'health',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The service answers', schema: liveness } },
  }),
  status: route({
    method: 'GET',
    path: '/status',
    operationId: 'status',
    lambda: { handler: 'functions/health/status.ts' },
    summary: 'Overall status; for admins, also the data store, workflows and each integration, with latency',
    tag: 'health',
    access: { who: 'anyone', recognise: 'admin' },
    responses: {
      200: { description: 'The overall status; with the admin key or an admin user, that of every dependency and integration too', schema: statusReport },
      401: { description: 'An admin key or bearer token was sent and is not valid' },
    },
  }),
};
