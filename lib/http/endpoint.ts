// The one middy stack every HTTP Lambda uses:
//   header normaliser → request context (correlation id, logger, access log)
//   → CORS → body size (413) → who is calling (401) → JSON body parser
//   → what they may do here (403/404) → schema validator → JSON errors (last).
// The access steps enforce the route's rule (route.ts) with the guard
// (lib/access/guard.ts, implemented by lib/access/permission-guard.ts); a route whose rule needs to know the caller cannot be
// built without one.
// The validator comes from the route's own schemas: precompiled into Lambda
// bundles, compiled once at start elsewhere (see validators.ts).

import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { httpSettings } from '../config.ts';
import { logger as rootLogger, takeColdStart, type Logger } from '../log.ts';
import { InvalidInput, PayloadTooLarge } from '../errors.ts';
import { headerValue } from '../text.ts';
import { toErrorAnswer, validationDetails } from './errors.ts';
import { eventSchemaOf, rawBodySchemaOf } from './event-schema.ts';
import { ANONYMOUS, type Caller, type Grant } from '../access/caller.ts';
import type { Guard } from '../access/guard.ts';
import { keyKindOf, needsCaller } from '../access/rules.ts';
import type { BodyOf, QueryOf, RouteSpec } from './route.ts';
import { validatorFor } from './validators.ts';

export interface HttpRequest<B = unknown, Q = Record<string, string | undefined>> {
  method: string;
  /** The route template, e.g. "POST /webhooks/booking/{secret}": safe to log, unlike the raw path. */
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  pathParams: Record<string, string>;
  query: Q;
  body: B;
  /** The body exactly as received; only kept for routes declared rawBody. */
  rawBody: string;
  /**
   * A rawBody route's body, parsed and checked against the route's body schema
   * (400 malformed_json or invalid_payload): its handler calls this once it has
   * checked the signature over rawBody, so an unsigned body learns nothing a
   * signed one would not. Other routes: their body, validated already.
   */
  readBody: () => unknown;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  clientIp: string;
  correlationId: string;
  /** The public origin of this API as API Gateway knows it (never taken from a client header). */
  apiOrigin: string;
  /** Who is calling, and the account the request acts on, as the route's access rule established them. */
  access: Grant;
  log: Logger;
  /** When the function's time is up (Date.now's clock): an answer must be given before it. Infinity outside Lambda. */
  deadline: number;
}

export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  cookies?: string[];
}

type Event = APIGatewayProxyEventV2 & { body?: unknown };
type Result = APIGatewayProxyStructuredResultV2;

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The largest request body any route takes, in bytes. Checked before anything
 * reads the body (the guard, the JSON parser), so no request makes the service
 * parse, validate or store more; every route's fields are far smaller, and a
 * record built from one body stays far below DynamoDB's 400 KB item limit.
 */
export const MAX_BODY_BYTES = 256 * 1024;

interface RequestState {
  correlationId: string;
  log: Logger;
  /** process.hrtime.bigint() at the start: the global performance clock would load perf_hooks on a cold start's first call. */
  startedAt: bigint;
  caller?: Caller;
  grant?: Grant;
}
const stateOf = new WeakMap<object, RequestState>();

type Handler<R extends RouteSpec> = (request: HttpRequest<BodyOf<R>, QueryOf<R>>) => Promise<HttpResult>;

/** A route whose rule needs to know the caller takes the guard first; the others do not load it. */
type EndpointArgs<R extends RouteSpec> = R['access'] extends { who: 'user' | 'admin' | 'member' } | { recognise: 'admin' }
  ? [guard: Guard, handle: Handler<R>]
  : [handle: Handler<R>];

export function httpEndpoint<const R extends RouteSpec>(spec: R, ...args: EndpointArgs<R>) {
  const [guard, handle] = (args.length === 2 ? args : [undefined, args[0]]) as [Guard | undefined, Handler<R>];
  if (needsCaller(spec.access) && !guard) throw new Error(`${spec.method} ${spec.path} needs the access guard to enforce its rule`);
  // A guard holds one kind of key (so a function carries only the key its routes take): it must be the route's.
  if (guard && guard.takes !== keyKindOf(spec.access)) {
    throw new Error(`${spec.method} ${spec.path} takes the ${keyKindOf(spec.access)} key; its guard holds the ${guard.takes} one`);
  }
  if (guard && spec.access.who === 'member' && !guard.readsRoles) {
    throw new Error(`${spec.method} ${spec.path} reads the caller's role in an account; its guard holds no membership store`);
  }
  const schema = eventSchemaOf(spec);
  const eventSchema = schema && validatorFor(schema);
  const parsesJson = spec.body !== undefined && !spec.rawBody;
  const readRaw = rawBodyReader(spec);
  const { corsOrigins, apiUrl } = httpSettings();

  const chain = middy<Event, Result>()
    .use(httpHeaderNormalizer())
    .use(requestContext())
    .use(
      httpCors({
        origins: [...corsOrigins],
        credentials: true,
        exposeHeaders: 'x-correlation-id, retry-after, location',
      }),
    );
  chain.use(bodyLimit());
  if (guard) chain.use(authenticate(guard, spec));
  if (parsesJson) chain.use(httpJsonBodyParser());
  if (guard) chain.use(authorize(guard, spec));
  if (eventSchema) chain.use(validator({ eventSchema: eventSchema as never }));
  chain.use(jsonErrors());

  return chain.handler(async (event, context) => {
    const state = stateOf.get(context)!;
    const request: HttpRequest<BodyOf<R>, QueryOf<R>> = {
      method: event.requestContext.http.method,
      routeKey: event.routeKey,
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString ?? '',
      pathParams: (event.pathParameters ?? {}) as Record<string, string>,
      query: (event.queryStringParameters ?? {}) as QueryOf<R>,
      body: (parsesJson ? event.body : undefined) as BodyOf<R>,
      rawBody: spec.rawBody ? decodeRawBody(event) : '',
      readBody: () => (readRaw ? readRaw(request.rawBody) : request.body),
      headers: (event.headers ?? {}) as Record<string, string>,
      clientIp: event.requestContext.http.sourceIp,
      correlationId: state.correlationId,
      apiOrigin: apiUrl ?? `https://${event.requestContext.domainName}`,
      access: state.grant ?? { caller: ANONYMOUS },
      log: state.log,
      deadline: context.getRemainingTimeInMillis ? Date.now() + context.getRemainingTimeInMillis() : Infinity,
    };
    return toApiResult(await handle(request));
  });
}

function requestContext(): middy.MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const event = request.event;
      const offered = event.headers?.['x-correlation-id'];
      // The Lambda request id is unique per invocation everywhere (offline's API request id is a constant).
      const correlationId =
        offered && CORRELATION_ID.test(offered) ? offered : request.context.awsRequestId || crypto.randomUUID();
      const log = rootLogger.with({ correlationId, route: event.routeKey });
      stateOf.set(request.context, { correlationId, log, startedAt: process.hrtime.bigint() });
      // Queries are validated as an object even when the request has none.
      event.queryStringParameters ??= {};
    },
    after: (request) => accessLog(request.context, request.response),
    onError: (request) => accessLog(request.context, request.response),
  };
}

function bodyLimit(): middy.MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (typeof body !== 'string') return;
      // Bytes, not characters; a base64 body is weighed as what it decodes to (without decoding it).
      const bytes = isBase64Encoded ? Math.floor((body.length * 3) / 4) - (body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0) : Buffer.byteLength(body);
      if (bytes > MAX_BODY_BYTES) throw new PayloadTooLarge(`The request body may be at most ${MAX_BODY_BYTES / 1024} KB`);
    },
  };
}

function authenticate(guard: Guard, spec: RouteSpec): middy.MiddlewareObj<Event, Result> {
  return {
    before: async (request) => {
      stateOf.get(request.context)!.caller = await guard.authenticate(spec.access, (request.event.headers ?? {}) as Record<string, string>);
    },
  };
}

function authorize(guard: Guard, spec: RouteSpec): middy.MiddlewareObj<Event, Result> {
  return {
    before: async (request) => {
      const state = stateOf.get(request.context)!;
      const { pathParameters, queryStringParameters, body } = request.event;
      state.grant = await guard.authorize(spec.access, state.caller ?? ANONYMOUS, {
        method: spec.method,
        pathParams: pathParameters ?? {},
        query: queryStringParameters ?? {},
        body,
      });
    },
  };
}

function accessLog(context: Context, response: Result | null | undefined) {
  const state = stateOf.get(context);
  if (!state || !response) return;
  const status = response.statusCode ?? 200;
  state.log.info('request', {
    status,
    durationMs: Math.round(Number(process.hrtime.bigint() - state.startedAt) / 1e6),
    coldStart: takeColdStart(),
  });
  // One spelling per header: middlewares disagree on case, and clients must not see duplicates.
  const headers: Record<string, string | number | boolean> = {};
  // No value may carry a control character (a CR/LF would end it and start a header of someone else's).
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = typeof value === 'string' ? headerValue(value) : value;
  headers['x-correlation-id'] = state.correlationId;
  response.headers = headers;
}

function jsonErrors(): middy.MiddlewareObj<Event, Result> {
  return {
    onError: (request) => {
      const state = stateOf.get(request.context);
      const correlationId = state?.correlationId ?? 'unknown';
      const answer = toErrorAnswer(request.error, correlationId);
      const log = state?.log ?? rootLogger;
      if (answer.serverFault) log.error('request failed', { error: request.error, status: answer.status });
      else log.info('request refused', { status: answer.status, code: answer.body.error.code });
      request.response = {
        statusCode: answer.status,
        headers: { 'content-type': 'application/json', ...answer.headers },
        body: JSON.stringify(answer.body),
      };
    },
  };
}

export function toApiResult(result: HttpResult): Result {
  const headers: Record<string, string> = { ...result.headers };
  let body: string | undefined;
  if (result.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  }
  return { statusCode: result.status, headers, body: body ?? '', cookies: result.cookies };
}

/**
 * Parses a raw-body route's body and checks it against the route's body schema
 * (validated with the same ajv setup, precompiled into bundles like the event
 * schemas); undefined for a route without one.
 */
export function rawBodyReader(spec: RouteSpec): ((rawBody: string) => unknown) | undefined {
  const schema = rawBodySchemaOf(spec);
  if (!schema) return undefined;
  const validate = validatorFor(schema);
  return (rawBody) => {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw new InvalidInput('The body is not valid JSON', undefined, 'malformed_json');
    }
    if (!validate(body)) throw new InvalidInput('The body is not an event this webhook reads', validationDetails(validate.errors), 'invalid_payload');
    return body;
  };
}

function decodeRawBody(event: Event): string {
  const body = typeof event.body === 'string' ? event.body : '';
  return event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** This request's URL as its caller addressed it: the API's own origin (never a client header), the path and the query. */
export const requestUrl = (request: Pick<HttpRequest, 'apiOrigin' | 'rawPath' | 'rawQueryString'>): string =>
  `${request.apiOrigin}${request.rawPath}${request.rawQueryString ? `?${request.rawQueryString}` : ''}`;

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResult => ({
  status,
  body,
  headers,
});

export const redirect = (status: 302 | 303, location: string): HttpResult => ({
  status,
  headers: { location, 'cache-control': 'no-store' },
});
