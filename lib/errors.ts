// Named domain errors. Use cases throw these; lib/http/errors.ts maps them to
// HTTP statuses in one place, and the state machines match them by name.
// A message here may be shown to a client, so it never carries a secret, a
// token or a vendor's raw error text.

export interface ErrorDetail {
  /** JSON pointer of the offending input, e.g. "/email". */
  path?: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: string;
  readonly details?: ErrorDetail[];
  /** Set when the same request may succeed later: after this many seconds (answered as Retry-After). */
  readonly retryAfterSeconds?: number;
  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** The input is missing, malformed or breaks a rule. */
export class InvalidInput extends DomainError {
  readonly code: string;
  constructor(message: string, details?: ErrorDetail[], code = 'invalid_request') {
    super(message, details);
    this.code = code;
  }
}

/** The body comes in a media type the route does not take. */
export class UnsupportedMediaType extends DomainError {
  readonly code = 'unsupported_media_type';
}

/** No valid credentials were presented. */
export class Unauthenticated extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'unauthenticated') {
    super(message);
    this.code = code;
  }
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'forbidden') {
    super(message);
    this.code = code;
  }
}

export class NotFound extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'not_found') {
    super(message);
    this.code = code;
  }
}

export class MethodNotAllowed extends DomainError {
  readonly code = 'method_not_allowed';
  readonly allowed: string[];
  constructor(allowed: string[]) {
    super(`Use ${allowed.join(' or ')} on this path`);
    this.allowed = allowed;
  }
}

export class Conflict extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'conflict') {
    super(message);
    this.code = code;
  }
}

/** It existed, and can no longer be used (an expired or revoked invitation). */
export class Gone extends DomainError {
  readonly code: string;
  constructor(message: string, code = 'gone') {
    super(message);
    this.code = code;
  }
}

/** The request is larger than the service takes (a body over the limit of lib/http/endpoint.ts). */
export class PayloadTooLarge extends DomainError {
  readonly code = 'payload_too_large';
}

export class RateLimited extends DomainError {
  readonly code = 'rate_limited';
  override readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A vendor could not do what we asked, after the retries that make sense.
 * `transient` failures (429, 5xx, timeouts) may succeed later; the state
 * machines retry them by the names below: VendorThrottled (a 429, whose
 * window can be a minute away, so it gets a longer retry schedule) and
 * VendorUnavailable (the rest). VendorRejected is permanent.
 */
export class VendorError extends DomainError {
  readonly code = 'vendor_failed';
  readonly vendor: string;
  readonly context: VendorErrorContext;
  constructor(vendor: string, message: string, context: VendorErrorContext) {
    super(message);
    this.name = !context.transient ? 'VendorRejected' : context.throttled || context.status === 429 ? 'VendorThrottled' : 'VendorUnavailable';
    this.vendor = vendor;
    this.context = context;
  }

  /**
   * An answer the adapter has no meaning for (an error code it does not
   * handle, a refusal it did not expect): permanent (VendorRejected, which no
   * state machine retries), and saying which vendor and which status and code.
   */
  static rejected(vendor: string, operation: string, answer: { status?: number; vendorCode?: string; attempts?: number } = {}): VendorError {
    const vendorCode = safeVendorCode(answer.vendorCode);
    const said = [answer.status, vendorCode].filter((part) => part !== undefined).join(' ') || 'no status or code';
    return new VendorError(vendor, `${vendor}: ${operation} was refused (${said})`, { transient: false, operation, ...definedOnly({ ...answer, vendorCode }) });
  }
}

/** The service holds this request for a while (maintenance); the same request will be taken later. */
export class Unavailable extends DomainError {
  readonly code: string;
  override readonly retryAfterSeconds: number;
  constructor(message: string, code: string, retryAfterSeconds: number) {
    super(message);
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Vendor codes are short identifiers; anything else (free text, which may echo input) is dropped. */
export function safeVendorCode(code: unknown): string | undefined {
  return typeof code === 'string' && /^[\w./:-]{1,80}$/.test(code) ? code : undefined;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface VendorErrorContext {
  transient: boolean;
  /** What we were doing, e.g. "create folder /Clients/acme/01 Admin". */
  operation: string;
  status?: number;
  /** The vendor's own error code, when it sent one (never its free text). */
  vendorCode?: string;
  attempts?: number;
  retryAfterMs?: number;
  /** The vendor said "later" in another way than a 429 (e.g. Dropbox's write contention): retried as a throttle. */
  throttled?: boolean;
  /** The vendor may have done it (answer lost); not repeated in-process, the step looks before it creates again. */
  outcomeUnknown?: boolean;
}
