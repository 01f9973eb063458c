// One retry mechanism for every vendor call: exponential backoff with full
// jitter, or the vendor's own retry hint when it sends one. A paced call (a
// workflow step's, pacing.ts; each request takes its slot where it is sent)
// hands a vendor's "later" (a 429, or a throttle inside another answer) to
// the state machine (MustWait) instead of sleeping here. Unpaced, a
// hint longer than the policy allows ends the attempts with VendorThrottled.
// An attempt whose outcome is unknown and which must not be sent twice (a
// create without an idempotency key) also ends the attempts at once: the
// state machine re-runs the step, which looks before it creates.
import { VendorError } from '../errors.ts';
import { MustWait, type VendorPace } from './pacing.ts';

export interface RetryPolicy {
  maxAttempts: number;
  /** First backoff ceiling; doubles each attempt (full jitter below it). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest vendor hint honoured in-process. */
  maxRetryWaitMs: number;
  /** The pace of the vendor credential, for calls made by workflow steps. */
  pace?: VendorPace;
}

/** How one failed attempt went. Vendor free text never goes in here. */
export interface AttemptFailure {
  transient: boolean;
  reason: string;
  status?: number;
  vendorCode?: string;
  retryAfterMs?: number;
  /** A "later" that is not a 429 (e.g. Dropbox's write contention): when attempts run out, VendorThrottled. */
  throttled?: boolean;
  /**
   * The vendor may have done the work but its answer is unknown (timeout,
   * connection lost after sending, 5xx), and the call is not safe to repeat:
   * no further attempt is made in-process.
   */
  outcomeUnknown?: boolean;
}

/** Thrown by an attempt to say how it failed. */
export class AttemptFailed extends Error {
  readonly failure: AttemptFailure;
  constructor(failure: AttemptFailure) {
    super(failure.reason);
    this.failure = failure;
  }
}

export type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function withRetries<T>(
  vendor: string,
  operation: string,
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  sleep: Sleep = realSleep,
): Promise<T> {
  let last: AttemptFailure = { transient: true, reason: 'no attempt made' };
  for (let n = 1; n <= Math.max(1, policy.maxAttempts); n++) {
    try {
      return await attempt(n);
    } catch (error) {
      // Already classified (a nested vendor call, e.g. a token refresh, with its own retries), or a wait for the state machine.
      if (error instanceof VendorError || error instanceof MustWait) throw error;
      last = error instanceof AttemptFailed ? error.failure : { transient: true, reason: networkReason(error) };
      // Inside a step this throws MustWait: the state machine waits as long as the vendor said.
      if (last.transient && (last.status === 429 || last.throttled)) await policy.pace?.later(last.retryAfterMs);
      if (!last.transient || last.outcomeUnknown) break;
      if (last.retryAfterMs !== undefined && last.retryAfterMs > policy.maxRetryWaitMs) break;
      if (n === policy.maxAttempts) break;
      await sleep(delayBefore(n, policy, last.retryAfterMs));
    }
  }
  if (!last.transient) throw VendorError.rejected(vendor, operation, { status: last.status, vendorCode: last.vendorCode });
  const attempts = Math.max(1, policy.maxAttempts);
  throw new VendorError(vendor, `${vendor}: ${operation} ${last.reason} (${whyStopped(last, attempts)})`, {
    transient: true,
    operation,
    status: last.status,
    vendorCode: last.vendorCode,
    retryAfterMs: last.retryAfterMs,
    ...(last.throttled ? { throttled: true } : {}),
    ...(last.outcomeUnknown ? { outcomeUnknown: true } : {}),
  });
}

function whyStopped(last: AttemptFailure, max: number) {
  if (last.outcomeUnknown) return 'not repeated: it may have been done';
  return `gave up after ${last.retryAfterMs !== undefined ? 'a long retry hint' : `${max} attempts`}`;
}

export function delayBefore(attempt: number, policy: RetryPolicy, hintMs?: number): number {
  if (hintMs !== undefined) return hintMs + Math.random() * Math.min(250, hintMs * 0.1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.random() * ceiling;
}

export function networkReason(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  return 'could not be reached';
}

// Errors that happen before a request leaves: the vendor cannot have acted on it.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** Whether a failed fetch certainly never reached the vendor (fetch wraps the socket error as its cause). */
export function failedBeforeSending(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT.has(code)) return true;
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length && inner.every((x) => NOT_SENT.has((x as { code?: string })?.code ?? ''))) return true;
  }
  return false;
}
