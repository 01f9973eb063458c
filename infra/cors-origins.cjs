// The origins API Gateway answers CORS preflights for, from the same settings
// and in the same way as lib/config.ts's corsOrigins (which the functions use
// for their responses): PORTAL_URL, DASHBOARD_URL and CORS_EXTRA_ORIGINS, each
// reduced to its origin. On an HTTP API with CORS configured, API Gateway
// ignores the CORS headers a function returns, so this list is what browsers
// see. Serverless resolves `${file(./infra/cors-origins.cjs)}` by calling it.
// Packaging needs no settings: unset, the local front ends' origins stand in
// (a deployment without PORTAL_URL and DASHBOARD_URL fails at cold start).
const LOCAL = { PORTAL_URL: 'http://localhost:3001', DASHBOARD_URL: 'http://localhost:3000' };

function corsOrigins(env = process.env) {
  const setting = (name) => (env[name] ?? '').trim() || LOCAL[name] || '';
  const listed = ['PORTAL_URL', 'DASHBOARD_URL', 'CORS_EXTRA_ORIGINS'].flatMap((name) => setting(name).split(','));
  return [...new Set(listed.map((o) => o.trim()).filter(Boolean).map((o) => new URL(o).origin))];
}

module.exports = () => corsOrigins();
module.exports.corsOrigins = corsOrigins;
