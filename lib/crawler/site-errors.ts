import { DomainError } from '../errors.ts';

/**
 * A client's website could not be read. `transient` failures (timeouts,
 * connection errors, 5xx) may work later, and the state machines retry them
 * by name (SiteUnavailable); the rest (SiteRefused) will not change on their
 * own: a blocked address, too many redirects, a page too large. The message
 * names the host at most, never a response body.
 */
export class SiteError extends DomainError {
  readonly code: string;
  readonly transient: boolean;
  constructor(code: SiteErrorCode, message: string, transient = false) {
    super(message);
    this.name = transient ? 'SiteUnavailable' : 'SiteRefused';
    this.code = code;
    this.transient = transient;
  }
}

export type SiteErrorCode =
  | 'blocked_address'
  | 'blocked_port'
  | 'unsupported_scheme'
  | 'unresolvable'
  | 'unreachable'
  | 'timed_out'
  | 'too_many_redirects'
  | 'too_large'
  | 'http_error'
  | 'not_html'
  | 'robots_unavailable';

/** A step's input is not there yet because an earlier step did not finish (the ASL does not retry this). */
export class PrerequisiteMissing extends DomainError {
  readonly code = 'prerequisite_missing';
}
