import { BaseError } from "./errors.ts";

/**
 * A value the code relies on was absent: an index past the end, a key never set. It reports a bug in
 * Sextant (or in what it was handed), not something the user can fix, and asking again does not help.
 */
export class MissingValueError extends BaseError {
  override name = "MissingValueError";

  constructor(what: string) {
    super(`${what} is missing`);
  }
}

export type RequiredErrorType = MissingValueError;

/**
 * Returns `value`, or throws a {@link MissingValueError} naming `what` when it is `undefined`. For an
 * index or lookup whose miss would be a bug: the error says what was missing, where reading on would
 * throw a bare TypeError further away (or carry `undefined` into a row).
 *
 * @example required(receipts[index], `receipt of transaction ${index}`)
 */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new MissingValueError(what);
  return value;
}
