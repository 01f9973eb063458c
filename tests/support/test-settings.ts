// The settings lib/config.ts needs, for tests that import service code
// in-process. Real values come from the stack in end-to-end tests.
const defaults: Record<string, string> = {
  STAGE: 'test',
  TABLE_PREFIX: 'test-',
  PORTAL_URL: 'http://localhost:3001',
  DASHBOARD_URL: 'http://localhost:3000',
  SUPABASE_URL: 'http://127.0.0.1:9',
  SUPABASE_ANON_KEY: 'test-anon-key',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  LOG_LEVEL: 'silent',
};
for (const [k, v] of Object.entries(defaults)) process.env[k] ??= v;
