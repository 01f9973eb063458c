// Every error answer of every endpoint has one shape:
//   { "error": { "code": "...", "message": "...", "details": [...] }, "requestId": "..." }
// This is the one place where errors become HTTP statuses.

import { ConfigError } from '../config.ts';
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  InvalidInput,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  Unauthenticated,
  Unavailable,
  UnsupportedMediaType,
  VendorError,
  type ErrorDetail,
} from '../errors.ts';

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
  requestId: string;
}

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Whether this is our fault (log at error level) rather than the caller's. */
  serverFault: boolean;
}

const domainStatus: [abstract new (...args: never[]) => DomainError, number][] = [
  [InvalidInput, 400],
  [Unauthenticated, 401],
  [Forbidden, 403],
  [NotFound, 404],
  [MethodNotAllowed, 405],
  [Conflict, 409],
  [Gone, 410],
  [PayloadTooLarge, 413],
  [UnsupportedMediaType, 415],
  [RateLimited, 429],
  [VendorError, 500],
  [Unavailable, 503],
];

interface MiddyHttpError {
  statusCode: number;
  message: string;
  cause?: { package?: string; data?: unknown };
}

export function toErrorAnswer(error: unknown, requestId: string): ErrorAnswer {
  const answer = (status: number, code: string, message: string, details?: ErrorDetail[], headers = {}) => ({
    status,
    body: { error: details?.length ? { code, message, details } : { code, message }, requestId },
    headers,
    serverFault: status >= 500,
  });

  if (error instanceof DomainError) {
    const status = domainStatus.find(([type]) => error instanceof type)?.[1] ?? 500;
    const headers =
      error.retryAfterSeconds !== undefined
        ? { 'retry-after': String(error.retryAfterSeconds) }
        : error instanceof MethodNotAllowed
          ? { allow: error.allowed.join(', ') }
          : {};
    return answer(status, error.code, error.message, error.details, headers);
  }

  if (isMiddyHttpError(error)) {
    const pkg = error.cause?.package;
    if (error.statusCode === 415) {
      return answer(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    }
    if (pkg === '@middy/http-json-body-parser') {
      return answer(400, 'malformed_json', 'The request body is not valid JSON');
    }
    if (pkg === '@middy/validator') {
      return answer(400, 'invalid_request', 'The request is invalid', validationDetails(error.cause?.data));
    }
    if (error.statusCode < 500) return answer(error.statusCode, 'bad_request', 'The request could not be processed');
  }

  if (error instanceof ConfigError) {
    return answer(500, 'misconfigured', 'The service is not configured correctly');
  }
  return answer(500, 'internal_error', 'Something went wrong on our side; it has been logged');
}

function isMiddyHttpError(error: unknown): error is MiddyHttpError {
  return typeof error === 'object' && error !== null && typeof (error as MiddyHttpError).statusCode === 'number';
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
  /** Set on the failures inside a propertyNames schema: the key that failed it. */
  propertyName?: string;
}

/** Turns ajv's errors into client-facing details: where, and what is wrong. */
export function validationDetails(data: unknown): ErrorDetail[] {
  if (!Array.isArray(data)) return [];
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const e of data as AjvError[]) {
    // "must match the then schema": the failure inside it is reported on its own.
    if (e.keyword === 'if') continue;
    // A key refused by propertyNames: reported once, by the propertyNames failure that follows.
    if (e.propertyName !== undefined) continue;
    let path = e.instancePath
      .replace(/^\/queryStringParameters/, '/query')
      .replace(/^\/pathParameters/, '/path');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      path = `${path}/${e.params.missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      path = `${path}/${e.params.additionalProperty}`;
      message = 'is not allowed';
    } else if (e.keyword === 'propertyNames' && typeof e.params?.propertyName === 'string') {
      path = `${path}/${e.params.propertyName}`;
      message = 'is not an allowed key name';
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    // Never echo the offending value: it may be a password.
    const key = `${path} ${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      details.push({ path: path || '/', message });
    }
    if (details.length >= 20) break;
  }
  return details;
}
