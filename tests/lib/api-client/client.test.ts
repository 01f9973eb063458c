// The typed client's own code (lib/api-client/index.js) against a fetch that
// records what it is sent; its types, checked by the typecheck.
import { ApiError, createApiClient, isErrorBody, unwrap, type DataOf, type ErrorCode } from '@onboarding-automation/api-client';
import { describe, expect, expectTypeOf, it } from 'vitest';

function fakeFetch(answer: (request: Request) => Response) {
  const sent: Request[] = [];
  return { sent, fetch: async (request: Request) => (sent.push(request), answer(request)) };
}

/** The literal codes of an ErrorCode, without its any-other-string part. */
type Known<T> = T extends string ? (string extends T ? never : T) : never;

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const refusal = { error: { code: 'email_not_confirmed', message: 'Verify your e-mail address before you log in' }, requestId: 'r-1' };

describe('the typed client', () => {
  it('sends the token of the moment as a bearer token, and none when there is none', async () => {
    let token: string | undefined = 'first';
    const { sent, fetch } = fakeFetch(() => json(200, { email: 'a@example.com' }));
    const api = createApiClient({ baseUrl: 'http://api.test', fetch, token: () => token });
    await api.GET('/api/auth/me');
    token = 'second';
    await api.GET('/api/auth/me');
    token = undefined;
    await api.GET('/api/auth/me');
    expect(sent.map((r) => [r.url, r.headers.get('authorization')])).toEqual([
      ['http://api.test/api/auth/me', 'Bearer first'],
      ['http://api.test/api/auth/me', 'Bearer second'],
      ['http://api.test/api/auth/me', null],
    ]);
  });

  it('sends bodies as JSON, path parameters in the path', async () => {
    const { sent, fetch } = fakeFetch(() => json(200, { accountId: 'a-1', role: 'member' }));
    const api = createApiClient({ baseUrl: 'http://api.test', fetch, token: 'fixed' });
    await api.POST('/api/invitations/{invitationId}/accept', { params: { path: { invitationId: 'inv-1' } } });
    await api.POST('/api/auth/login', { body: { email: 'a@example.com', password: 'Secret123' } });
    expect(sent[0]!.url).toBe('http://api.test/api/invitations/inv-1/accept');
    expect(sent[1]!.headers.get('content-type')).toBe('application/json');
    expect(await sent[1]!.json()).toEqual({ email: 'a@example.com', password: 'Secret123' });
  });

  it('answers an error with its body, and unwrap throws it as ApiError', async () => {
    const api = createApiClient({ baseUrl: 'http://api.test', fetch: fakeFetch(() => json(403, refusal)).fetch });
    const result = await api.POST('/api/auth/login', { body: { email: 'a@example.com', password: 'x' } });
    expect(result.error).toEqual(refusal);
    expect(() => unwrap(result)).toThrow(ApiError);
    expect(() => unwrap(result)).toThrow(expect.objectContaining({ status: 403, code: 'email_not_confirmed', requestId: 'r-1', details: [], body: refusal }));
  });

  it("names an answer that is not the API's error shape by its status (a gateway's 502)", async () => {
    const api = createApiClient({ baseUrl: 'http://api.test', fetch: fakeFetch(() => new Response('Bad Gateway', { status: 502 })).fetch });
    const thrown = await api.GET('/api/auth/me').then(unwrap).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ status: 502, code: 'http_502', message: 'Bad Gateway', requestId: undefined });
    expect(isErrorBody(refusal)).toBe(true);
    expect(isErrorBody({ message: 'Service Unavailable' })).toBe(false);
  });

  it('types each route: its data, and its error codes as the known ones or any other', () => {
    expectTypeOf<DataOf<'currentUser'>['accounts'][number]['plan']>().toEqualTypeOf<string | null>();
    expectTypeOf<'invalid_credentials' | 'email_not_confirmed' | 'rate_limited' | 'malformed_json'>().toExtend<ErrorCode<'/api/auth/login', 'post'>>();
    expectTypeOf<Extract<ErrorCode<'/api/auth/signup', 'post'>, 'email_already_registered'>>().toEqualTypeOf<'email_already_registered'>();
    expectTypeOf<'a_code_of_a_later_version'>().toExtend<ErrorCode<'/api/auth/signup', 'post'>>();
    expectTypeOf<Known<ErrorCode<'/api/auth/login', 'post', 403>>>().toEqualTypeOf<'email_not_confirmed'>();
    expectTypeOf<Known<ErrorCode<'/health', 'get'>>>().toEqualTypeOf<never>();
  });
});
