// The API's typed client: openapi-fetch over the types of schema.d.ts, with a
// bearer token sent on every request and the common error body as ApiError.
// Plain JavaScript with its types beside it (index.d.ts), so any bundler or
// Node takes the package as it is, with no build step.
import createClient from 'openapi-fetch';

/** @param {import('./index.js').ApiClientOptions} options */
export function createApiClient({ token, ...options }) {
  const client = createClient(options);
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        const value = typeof token === 'function' ? await token() : token;
        if (value && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${value}`);
        return request;
      },
    });
  }
  return client;
}

/** An error answer of the API: its status and the common error body. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = isErrorBody(body) ? body.error : { code: `http_${status}`, message: typeof body === 'string' && body ? body : `HTTP ${status}` };
    super(error.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = error.code;
    this.details = error.details ?? [];
    this.requestId = isErrorBody(body) ? body.requestId : undefined;
    this.body = body;
  }
}

/** The data of a call's result; throws ApiError when the API answered an error. */
export function unwrap(result) {
  if (result.error !== undefined || !result.response.ok) throw new ApiError(result.response.status, result.error);
  return result.data;
}

/** Whether a value has the API's error shape: { error: { code, message }, requestId }. */
export function isErrorBody(value) {
  return typeof value === 'object' && value !== null && typeof value.error === 'object' && value.error !== null && typeof value.error.code === 'string';
}
