import { BaseError, isRetryable } from "./errors.ts";
import { sleep } from "./sleep.ts";

export type RetryParameters = {
  /** Once it fires, nothing more is tried or waited for: its reason is thrown. */
  signal?: AbortSignal;
  /** Tries in all, the first included; by default the task is tried until it succeeds or fails for good. */
  attempts?: number;
  /** A failure once this long has passed since the first try is thrown, not retried, however long each try takes. */
  withinMs?: number;
  /** Wait after the first failure; it doubles after each further one, up to `maxDelayMs`. */
  delayMs?: number;
  maxDelayMs?: number;
  /** Called after each failure that will be retried, with the number of failures so far. */
  onRetry?: (error: unknown, failures: number) => void;
  /** Called when the task succeeds after `failures` failures. */
  onRecovered?: (failures: number) => void;
};

/**
 * Runs `task` until it succeeds, waiting longer after each failure that can pass — the errors say so
 * themselves, and a lost database connection counts like a node that is away (see {@link isRetryable}).
 * Any other error is thrown at once, the last one once `attempts` are spent or `withinMs` has passed. Each wait is jittered, and never shorter than an error's
 * `retryAfterMs` (a rate limit's `Retry-After`), so
 * callers that failed together do not all come back at the same moment. `task` is told how many times it
 * failed before, so it can pick up where a failure may have left things.
 *
 * @example
 * const head = await retry(() => eth_blockNumber(client), { attempts: 3, delayMs: 100, signal });
 */
export async function retry<T>(
  task: (failures: number) => Promise<T>,
  {
    signal,
    attempts = Number.POSITIVE_INFINITY,
    withinMs = Number.POSITIVE_INFINITY,
    delayMs = 200,
    maxDelayMs = 10_000,
    onRetry,
    onRecovered,
  }: RetryParameters = {},
): Promise<T> {
  const startedAt = Date.now();
  for (let failures = 0; ; ) {
    signal?.throwIfAborted();
    try {
      const result = await task(failures);
      if (failures > 0) onRecovered?.(failures);
      return result;
    } catch (error) {
      // A failure caused by stopping, or one during it, is not reported as a fault.
      signal?.throwIfAborted();
      if (!isRetryable(error) || failures + 1 >= attempts || Date.now() - startedAt >= withinMs) throw error;
      failures++;
      onRetry?.(error, failures);
      const delay = delayMs * 2 ** (failures - 1);
      const backoff = Math.min(maxDelayMs, delay / 2 + Math.random() * delay);
      // A service that says when to come back is not asked sooner: a rate limit is not tripped again.
      const askedFor = error instanceof BaseError ? (error.retryAfterMs ?? 0) : 0;
      await sleep(Math.max(backoff, askedFor), signal);
    }
  }
}
