// The HTTP stack of every route, in-process, under hostile requests: it answers
// each with a 2xx from the handler or a 4xx in the JSON error shape (never a
// 5xx), and no request ever changes a prototype in the process.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { permissionGuard } from '../../../lib/access/permission-guard.ts';
import { catalog } from '../../../lib/api/catalog.ts';
import { InvalidInput } from '../../../lib/errors.ts';
import { httpEndpoint, json } from '../../../lib/http/endpoint.ts';
import { keyKindOf, needsCaller, type KeyKind } from '../../../lib/access/rules.ts';
import { normaliseIntake } from '../../../lib/onboarding/intake.ts';
import { httpEvent, lambdaContext } from '../../support/events.ts';
import { hostileRequest } from '../../support/hostile.ts';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 1000);
const prototypesUntouched = () => {
  for (const proto of [Object.prototype, Array.prototype, Function.prototype]) {
    expect(Object.getOwnPropertyNames(proto).filter((k) => ['polluted', 'isAdmin', 'x'].includes(k))).toEqual([]);
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
};

afterEach(prototypesUntouched);

/** Guards whose provider knows every caller as an owner of every account: hostile input reaches past access to validation. */
const guardTaking = (takes: KeyKind) =>
  permissionGuard(takes, () => ({
    identity: {
      userForAccessToken: async (token: string) => ({ id: `u-${token.length}`, email: 'h@example.com', emailConfirmed: true, appMetadata: { role: 'admin' }, userMetadata: {} }),
    },
    memberships: {
      get: async (accountId: string, userId: string) => ({
        account_id: accountId,
        user_id: userId,
        email: 'h@example.com',
        role: 'owner' as const,
        status: 'active' as const,
        joined_via: 'created' as const,
        joined_at: 'x',
        updated_at: 'x',
      }),
      ofUser: async () => [],
    },
    // Every account open: its writes are allowed.
    refuseIfClosed: async () => {},
    key: 'k',
  }));

describe('the HTTP stack of every route, under hostile requests', () => {
  for (const route of catalog) {
    // The route's own access, validation and parsing, in front of a handler that echoes what it got.
    const echo = async ({ body, query }: { body: unknown; query: unknown }) => json(200, { body, query });
    const build = httpEndpoint as (...args: unknown[]) => ReturnType<typeof httpEndpoint>;
    const handler = needsCaller(route.access) ? build(route, guardTaking(keyKindOf(route.access)), echo) : build(route, echo);
    it(`${route.method} ${route.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(hostileRequest(route), async (req) => {
          const event = httpEvent({
            method: req.method,
            path: req.path,
            headers: req.headers,
            body: req.body,
            query: Object.keys(req.query).length ? req.query : undefined,
            pathParameters: Object.keys(req.pathParams).length ? req.pathParams : undefined,
          });
          const res = (await handler(event as never, lambdaContext())) as { statusCode: number; body: string; headers: Record<string, string> };
          expect(res.statusCode).not.toBeGreaterThanOrEqual(500);
          if (res.statusCode >= 400) expect(JSON.parse(res.body)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
          if (req.protoKey) expect(res.statusCode).toBeGreaterThanOrEqual(400);
          prototypesUntouched();
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('the onboarding form, normalised', () => {
  it('either gives a normalised form or an InvalidInput, and never touches a prototype', () => {
    const field = fc.oneof(fc.string({ maxLength: 40 }), fc.webUrl(), fc.domain(), fc.constantFrom('Europe/Berlin', 'UTC', '+01:00', '__proto__', 'constructor'));
    const body = fc.record(
      {
        email: fc.emailAddress(),
        companyName: field,
        company: field,
        website: field,
        domain: field,
        timezone: field,
        time_zone: field,
        metadata: fc.dictionary(fc.constantFrom('a', '__proto__', 'constructor', 'prototype'), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: ['email'] },
    );
    fc.assert(
      fc.property(body, (b) => {
        try {
          const intake = normaliseIntake(b);
          expect(intake.companyName.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInput);
        }
        prototypesUntouched();
      }),
      { numRuns: RUNS },
    );
  });
});
