import { describe, expect, it } from 'vitest';
import { serviceFunctions } from '../../infra/functions.ts';
import { clientsOf, httpStackOf } from '../../bench/cold-start.ts';
import { probedHttpFunctions } from '../../bench/requests.ts';

// The bench's cold-start probe sends each HTTP function the request a real
// caller would (bench/requests.ts) and stops when one has none: a function
// added to the catalog without its request would only be found by the
// next `npm run bench`, ten minutes in.
describe('the bench', () => {
  it('has a cold-start request for every HTTP function the service declares', () => {
    const httpFunctions = Object.entries(serviceFunctions())
      .filter(([, fn]) => (fn.events ?? []).some((e) => e.httpApi !== undefined))
      .map(([key]) => key);
    expect(httpFunctions.length).toBeGreaterThan(0);
    expect(httpFunctions.filter((key) => !probedHttpFunctions().includes(key))).toEqual([]);
  });

  // The fixed-SDK floor loads the packages a function's requests need, and no others: a floor that loads
  // more is no lower bound. Locally every vendor is one emulator origin (seen: logout's floor loaded stripe).
  it("names the fixed packages a function's first call used by the API each request went to, not the shared origin", () => {
    const origin = 'http://127.0.0.1:20001';
    const env = { SUPABASE_URL: origin, STRIPE_API_BASE: origin, RESEND_BASE_URL: `${origin}/resend` };
    const to = (url: string, authorization?: string, method = 'POST') => ({ method, url, body: '', headers: authorization ? { authorization } : ({} as Record<string, string>) });
    const sigv4 = (service: string) => `AWS4-HMAC-SHA256 Credential=local/20261127/eu-west-1/${service}/aws4_request, SignedHeaders=host, Signature=00`;
    expect(clientsOf([to(`${origin}/auth/v1/logout?scope=global`), to(`${origin}/auth/v1/user`, 'Bearer t', 'GET')], env)).toEqual(['supabase']);
    // A request no supabase-js call sends (/status checks Auth's health with a bare GET) needs no supabase-js.
    expect(clientsOf([to(`${origin}/auth/v1/health`, undefined, 'GET')], env)).toEqual([]);
    expect(clientsOf([to(`${origin}/v1/checkout/sessions`)], env)).toEqual(['stripe']);
    expect(clientsOf([to(`${origin}/resend/emails`)], env)).toEqual(['resend']);
    expect(clientsOf([to('http://127.0.0.1:20002/', sigv4('dynamodb')), to('http://127.0.0.1:20003/', sigv4('states'))], env)).toEqual(['dynamodb', 'states']);
    expect(clientsOf([to(`${origin}/_local/anything`)], env)).toEqual([]);
  });

  // An HTTP function's fixed-SDK floor has the middy packages the customer fixed, as its route needs them; a step has none.
  it("gives an HTTP function's fixed-SDK floor middy, its JSON body parser when the route takes a JSON body, and its validator when the event has a schema", () => {
    expect(httpStackOf({ route: { method: 'POST', path: '/api/auth/login' } })).toEqual({ json: true, validates: true });
    expect(httpStackOf({ route: { method: 'GET', path: '/api/auth/me' } })).toEqual({ json: false, validates: false });
    expect(httpStackOf({})).toBeUndefined();
  });
});
