// The types of index.js. The routes' own types are generated (schema.d.ts).
import type { Client, ClientOptions, FetchResponse } from 'openapi-fetch';
import type { components, errorCodes, operations, paths } from './schema.js';

export type { components, errorCodes, operations, paths };

/** Typed calls for every route: api.GET('/api/auth/me'), api.POST('/api/auth/login', { body }), ... */
export type ApiClient = Client<paths, 'application/json'>;

export interface ApiClientOptions extends ClientOptions {
  /** The API's origin, e.g. http://localhost:10000 */
  baseUrl: string;
  /** Sent as Authorization: Bearer on every request: a token, or a function asked before each request (e.g. reading your session store). */
  token?: string | (() => string | null | undefined | Promise<string | null | undefined>);
}

export declare function createApiClient(options: ApiClientOptions): ApiClient;

/** The body of every error answer: { error: { code, message, details? }, requestId }. */
export type ErrorBody = components['schemas']['Error'];

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The paths that take a method, e.g. RoutePath<'post'>. */
export type RoutePath<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined | never ? never : P }[keyof paths];

/** The error bodies a route documents: ErrorOf<'/api/auth/login', 'post'>. */
export type ErrorOf<P extends RoutePath<M>, M extends Method> = NonNullable<FetchResponse<NonNullable<paths[P][M]>, {}, 'application/json'>['error']>;

/**
 * A route's error codes: the ones it is known to answer, which an editor
 * completes and a switch narrows, or any other string (a later version may add
 * codes). `const code: ErrorCode<'/api/auth/login', 'post'> = error.error.code`.
 * With a status, the codes of that answer only: ErrorCode<'/api/auth/login', 'post', 403>.
 */
export type ErrorCode<P extends RoutePath<M>, M extends Method, S extends number = number> = KnownCode<P, M, S> | (string & {});
type KnownCode<P, M, S> = P extends keyof errorCodes ? (M extends keyof errorCodes[P] ? { [K in keyof errorCodes[P][M] & S]: errorCodes[P][M][K] }[keyof errorCodes[P][M] & S] : never) : never;

/** An operation's success body, by its operationId: DataOf<'currentUser'>. */
export type DataOf<Op extends keyof operations> = NonNullable<FetchResponse<operations[Op], {}, 'application/json'>['data']>;

/** An error answer of the API. `code` is the body's error.code (http_<status> when the body is not the API's error shape, e.g. a gateway's). */
export declare class ApiError<Code extends string = string> extends Error {
  constructor(status: number, body: unknown);
  readonly status: number;
  readonly code: Code;
  readonly details: { path?: string; message: string }[];
  readonly requestId: string | undefined;
  readonly body: unknown;
}

/** The data of a call's result, or throws ApiError: `const me = unwrap(await api.GET('/api/auth/me'))`. */
export declare function unwrap<D, E>(result: { data?: D; error?: E; response: Response }): D;

export declare function isErrorBody(value: unknown): value is ErrorBody;
