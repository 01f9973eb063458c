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
  required: ['status', 'checkedAt', 'dependencies', 'integrations'],
  properties: {
    status: { enum: ['ok', 'degraded', 'down'] },
    checkedAt: { type: 'string' },
    dependencies: { type: 'object', additionalProperties: check },
    integrations: { type: 'object', additionalProperties: check },
  },
} as const;

export const healthRoutes = {
  health: route({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness check of the running instance',
    tag: 'health',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The service answers', schema: liveness } },
  }),
  healthz: route({
    method: 'GET',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Basic liveness, no dependencies',
    tag: 'health',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The service answers', schema: liveness } },
  }),
  status: route({
    method: 'GET',
    path: '/status',
    operationId: 'status',
    summary: 'Extended status: data store, workflows and each integration, with latency',
    tag: 'health',
    access: { who: 'anyone' },
    responses: { 200: { description: 'The status of every dependency', schema: statusReport } },
  }),
};
