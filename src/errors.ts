import { isDatabaseUnavailable } from "./db/unavailable.ts";

export type BaseErrorParameters = {
  /** Extra context shown after the short message. */
  details?: string;
  cause?: unknown;
  /** See {@link BaseError.retryAfterMs}. */
  retryAfterMs?: number;
};

/**
 * Root of Sextant's errors: a one-line `shortMessage` a user can act on, plus optional `details`.
 * Modelled on viem's BaseError so errors read the same across the stack. Each error class says itself
 * whether asking again can help and whether the user is the one to fix it; {@link isRetryable} and
 * {@link isUserError} read those flags, so no caller keeps a list of classes.
 */
export class BaseError extends Error {
  override name = "SextantError";
  readonly shortMessage: string;
  readonly details?: string;
  /** Asking again later can succeed: the node or another service was away or busy, not the request wrong. */
  readonly retryable: boolean = false;
  /** How long the service that failed asked to be left alone before the next try (HTTP `Retry-After`). */
  readonly retryAfterMs?: number;
  /**
   * The user can fix it (configuration, input, the chain a database holds): the CLI prints the short
   * message and exits with code 2 instead of reporting a crash.
   */
  readonly isUserError: boolean = false;

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(parameters.details ? `${shortMessage}\n\nDetails: ${parameters.details}` : shortMessage, {
      cause: parameters.cause,
    });
    this.shortMessage = shortMessage;
    this.details = parameters.details;
    this.retryAfterMs = parameters.retryAfterMs;
  }
}

/**
 * Whether asking again can succeed: a Sextant error's own `retryable` flag, or a database connection
 * that was lost or refused (the drivers' errors carry no flag of ours), like a node that is away.
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof BaseError ? error.retryable : isDatabaseUnavailable(error);
}

/** Whether `error` is one the user can fix (see {@link BaseError.isUserError}). */
export function isUserError(error: unknown): error is BaseError {
  return error instanceof BaseError && error.isUserError;
}
