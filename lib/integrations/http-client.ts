// Outbound JSON calls to a vendor's HTTP API, through the one retry mechanism.
// 429, 5xx, timeouts and network errors are transient and retried; other 4xx
// answers are either expected by the caller (`accept`) or permanent.
// A call marked `repeatable: false` (a create the vendor cannot deduplicate)
// is not retried in-process when its outcome is unknown (timeout, connection
// lost after sending, 5xx): the vendor may have done it, so the error goes up
// at once and the step, re-run by the state machine, looks before it creates.
// A 429 or a connection that was never made are retried as usual: nothing was done.
import { safeVendorCode, VendorError } from '../errors.ts';
import { httpTransport, type HttpTransport, type TransportHeaders, type TransportResponse } from './http-transport.ts';
import { MustWait } from './pacing.ts';
import { AttemptFailed, failedBeforeSending, networkReason, withRetries, type RetryPolicy, type Sleep } from './retry.ts';

export interface VendorHttpConfig {
  vendor: string;
  baseUrl: string;
  /** Auth and other headers, computed per attempt (tokens may refresh). */
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  policy: RetryPolicy & { timeoutMs: number };
  /** The vendor's retry hint in ms, from its headers or body. */
  retryHint?: (response: TransportResponse, body: unknown) => number | undefined;
  /** The vendor's own error code, if its error body has one. */
  errorCode?: (body: unknown) => string | undefined;
  /**
   * An answer other than a 429, whatever its status, in which the vendor says
   * nothing was done and to ask again later: Dropbox's write contention inside
   * a 409, Slack's rate_limited inside a 200. Retried with backoff, and
   * VendorThrottled when the attempts run out.
   */
  isThrottle?: (response: TransportResponse, body: unknown) => boolean;
  /**
   * Forget cached credentials after a 401 (a revoked or expired token): the
   * call is then sent once more with fresh headers. Nothing was done on a
   * 401, so even a call that must not be repeated may be.
   */
  reauthenticate?: () => void;
  sleep?: Sleep;
  /** How requests travel: node:http(s) (http-transport.ts). */
  fetch?: HttpTransport;
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
  headers: TransportHeaders;
}

export type VendorHttp = <T = unknown>(operation: string, request: VendorRequest) => Promise<VendorResponse<T>>;

export function vendorHttp(config: VendorHttpConfig): VendorHttp {
  const doFetch = config.fetch ?? httpTransport;
  return (operation, request) =>
    withRetries(
      config.vendor,
      operation,
      config.policy,
      async () => {
        let body: string | Uint8Array | undefined = request.body;
        const contentType: Record<string, string> = {};
        if (request.json !== undefined) {
          body = JSON.stringify(request.json);
          contentType['content-type'] = 'application/json';
        }
        const unsafe = request.repeatable === false;
        const send = async () => {
          await config.policy.pace?.take();
          const headers = { accept: 'application/json', ...(await config.headers()), ...request.headers, ...contentType };
          const response = await doFetch(`${request.baseUrl ?? config.baseUrl}${request.path}`, {
            method: request.method ?? (body === undefined ? 'GET' : 'POST'),
            headers,
            body,
            redirect: 'manual',
            signal: AbortSignal.timeout(config.policy.timeoutMs),
          });
          return { response, parsed: await readBody(response) };
        };
        let response: TransportResponse;
        let parsed: unknown;
        try {
          ({ response, parsed } = await send());
          if (response.status === 401 && config.reauthenticate) {
            config.reauthenticate();
            ({ response, parsed } = await send());
          }
        } catch (error) {
          // A nested vendor call (a token refresh) failed after its own retries, or the call must wait for its slot.
          if (error instanceof VendorError || error instanceof MustWait) throw error;
          throw new AttemptFailed({ transient: true, reason: networkReason(error), outcomeUnknown: unsafe && !failedBeforeSending(error) });
        }
        const throttled = config.isThrottle?.(response, parsed) === true;
        if (!throttled && (response.ok || request.accept?.includes(response.status))) {
          return { status: response.status, body: parsed as never, headers: response.headers };
        }
        const vendorCode = safeVendorCode(config.errorCode?.(parsed));
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
        if (throttled) {
          throw new AttemptFailed({
            transient: true,
            throttled: true,
            reason: `was told to slow down (${response.status}${vendorCode ? ` ${vendorCode}` : ''})`,
            status: response.status,
            vendorCode,
            retryAfterMs: config.retryHint?.(response, parsed),
          });
        }
        throw new AttemptFailed({ transient: false, reason: 'was refused', status: response.status, vendorCode });
      },
      config.sleep,
    );
}

async function readBody(response: TransportResponse): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}


/** Seconds in a Retry-After header (the common form) as ms. */
export function retryAfterHeader(response: TransportResponse): number | undefined {
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
