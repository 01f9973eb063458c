// Outbound JSON calls to a vendor's HTTP API, through the one retry mechanism.
// 429, 5xx, timeouts and network errors are transient and retried; other 4xx
// answers are either expected by the caller (`accept`) or permanent.
// A call marked `repeatable: false` (a create the vendor cannot deduplicate)
// is not retried in-process when its outcome is unknown (timeout, connection
// lost after sending, 5xx): the vendor may have done it, so the error goes up
// at once and the step, re-run by the state machine, looks before it creates.
// A 429 or a connection that was never made are retried as usual: nothing was done.
import { AttemptFailed, failedBeforeSending, networkReason, withRetries, type RetryPolicy, type Sleep } from './retry.ts';

export interface VendorHttpConfig {
  vendor: string;
  baseUrl: string;
  /** Auth and other headers, computed per attempt (tokens may refresh). */
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  policy: RetryPolicy & { timeoutMs: number };
  /** The vendor's retry hint in ms, from its headers or body. */
  retryHint?: (response: Response, body: unknown) => number | undefined;
  /** The vendor's own error code, if its error body has one. */
  errorCode?: (body: unknown) => string | undefined;
  sleep?: Sleep;
  fetch?: typeof fetch;
}

export interface VendorRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Appended to the base URL. */
  path: string;
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Non-2xx statuses the caller handles itself (e.g. Dropbox's 409 conflict). */
  accept?: number[];
  /** Another origin for this call (e.g. Dropbox's content host). */
  baseUrl?: string;
  /** false: sending it twice may do it twice (no idempotency key), so an unknown outcome is never retried here. */
  repeatable?: boolean;
}

export interface VendorResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export type VendorHttp = <T = unknown>(operation: string, request: VendorRequest) => Promise<VendorResponse<T>>;

export function vendorHttp(config: VendorHttpConfig): VendorHttp {
  const doFetch = config.fetch ?? fetch;
  return (operation, request) =>
    withRetries(
      config.vendor,
      operation,
      config.policy,
      async () => {
        const headers: Record<string, string> = { accept: 'application/json', ...(await config.headers()), ...request.headers };
        let body: string | Uint8Array | undefined = request.body;
        if (request.json !== undefined) {
          body = JSON.stringify(request.json);
          headers['content-type'] = 'application/json';
        }
        const unsafe = request.repeatable === false;
        let response: Response;
        let parsed: unknown;
        try {
          response = await doFetch(`${request.baseUrl ?? config.baseUrl}${request.path}`, {
            method: request.method ?? (body === undefined ? 'GET' : 'POST'),
            headers,
            body: body as RequestInit['body'],
            redirect: 'manual',
            signal: AbortSignal.timeout(config.policy.timeoutMs),
          });
          parsed = await readBody(response);
        } catch (error) {
          throw new AttemptFailed({ transient: true, reason: networkReason(error), outcomeUnknown: unsafe && !failedBeforeSending(error) });
        }
        if (response.ok || request.accept?.includes(response.status)) {
          return { status: response.status, body: parsed as never, headers: response.headers };
        }
        const vendorCode = safeCode(config.errorCode?.(parsed));
        if (response.status === 429 || response.status >= 500) {
          throw new AttemptFailed({
            transient: true,
            reason: response.status === 429 ? 'was throttled (429)' : `answered ${response.status}`,
            status: response.status,
            vendorCode,
            retryAfterMs: config.retryHint?.(response, parsed),
            outcomeUnknown: unsafe && response.status !== 429,
          });
        }
        throw new AttemptFailed({
          transient: false,
          reason: `was refused (${response.status}${vendorCode ? ` ${vendorCode}` : ''})`,
          status: response.status,
          vendorCode,
        });
      },
      config.sleep,
    );
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Vendor codes are short identifiers; anything else (free text) is dropped. */
function safeCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[\w./:-]{1,80}$/.test(code) ? code : undefined;
}

/** Seconds in a Retry-After header (the common form) as ms. */
export function retryAfterHeader(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The retry policy from configuration. */
export function policyFrom(vendors: { timeoutMs: number; maxAttempts: number; maxRetryWaitMs: number }) {
  return { timeoutMs: vendors.timeoutMs, maxAttempts: vendors.maxAttempts, maxRetryWaitMs: vendors.maxRetryWaitMs, baseDelayMs: 250, maxDelayMs: 4000 };
}

/** A person is waiting on the answer (auth, checkout): fewer and shorter retries than a workflow step gets. */
export function interactivePolicyFrom(vendors: { timeoutMs: number; maxAttempts: number; maxRetryWaitMs: number }) {
  return {
    ...policyFrom(vendors),
    maxAttempts: Math.min(vendors.maxAttempts, 3),
    maxRetryWaitMs: Math.min(vendors.maxRetryWaitMs, 2000),
  };
}
