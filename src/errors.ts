export type BaseErrorParameters = {
  /** Extra context shown after the short message. */
  details?: string;
  cause?: unknown;
};

/**
 * Root of Sextant's errors: a one-line `shortMessage` a user can act on, plus optional `details`.
 * Modelled on viem's BaseError so errors read the same across the stack.
 */
export class BaseError extends Error {
  override name = "SextantError";
  readonly shortMessage: string;
  readonly details?: string;

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(parameters.details ? `${shortMessage}\n\nDetails: ${parameters.details}` : shortMessage, {
      cause: parameters.cause,
    });
    this.shortMessage = shortMessage;
    this.details = parameters.details;
  }
}
