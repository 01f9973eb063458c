import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { api, errorCode, stack } from '../support/http.ts';

const ADMIN_KEY = { 'x-admin-key': 'local-admin-api-key' };

describe('health and the API description', () => {
  it('GET /health answers 200 ok', async () => {
    const res = await api('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', stage: 'local' });
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
  });

  it('GET /healthz answers 200 ok', async () => {
    const res = await api('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /status tells anyone the overall status, and an admin each dependency and integration', async () => {
    const anonymous = await api('/status');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ status: expect.stringMatching(/^(ok|degraded|down)$/), checkedAt: expect.any(String) });
    const res = await api('/status', { headers: ADMIN_KEY });
    expect(res.status).toBe(200);
    expect(res.body.dependencies.dynamodb).toMatchObject({ reachable: true, latencyMs: expect.any(Number) });
    expect(res.body.dependencies).toHaveProperty('stepFunctions');
    for (const name of ['identity', 'payments', 'resend', 'clickup', 'dropbox', 'slack', 'close', 'crawler']) {
      expect(res.body.integrations[name], name).toHaveProperty('reachable');
      expect(res.body.integrations[name], name).toHaveProperty('configured');
    }
  });

  it('/status never shows a credential, not even to an admin', async () => {
    const res = await api('/status', { headers: ADMIN_KEY });
    expect(res.body.integrations).toBeDefined();
    const text = res.text;
    const secrets = Object.entries(stack().env).filter(([key, value]) => !key.startsWith('AWS_') && /KEY|SECRET|TOKEN|WEBHOOK_URL/.test(key) && value);
    expect(secrets.length).toBeGreaterThan(0);
    for (const [key, value] of secrets) expect(text, key).not.toContain(value);
    expect(text).not.toMatch(/sk_(test|live)_|whsec_|re_[A-Za-z0-9]|xoxb-|pk_[A-Za-z0-9]/);
  });

  it('GET /openapi.json is a valid OpenAPI 3.1 document of the live routes', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    const result = await new Validator().validate(res.body);
    expect(result.valid).toBe(true);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/health', '/healthz', '/status', '/openapi.json']));
  });

  it('an unknown route answers 404 in the JSON error shape', async () => {
    const res = await api('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(errorCode(res)).toBe('not_found');
  });

  it('a known path with the wrong method answers 405 with Allow', async () => {
    const res = await api('/health', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(errorCode(res)).toBe('method_not_allowed');
  });
});
