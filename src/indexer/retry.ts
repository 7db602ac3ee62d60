import type { Logger } from "../logger.ts";
import { RpcError } from "../rpc/errors.ts";

export type RetryParameters = {
  /** What is being attempted, for the log. */
  what: string;
  logger: Logger;
  signal?: AbortSignal;
  /** Longest wait between attempts. */
  maxDelayMs?: number;
};

/**
 * Runs `task` until it succeeds, waiting longer after each retryable RPC failure (up to `maxDelayMs`),
 * so the indexer rides out a node that is down or restarting. A burst of failures is logged once when
 * it starts and once when it ends. Non-retryable errors are thrown at once.
 */
export async function retryForever<T>(
  task: () => Promise<T>,
  { what, logger, signal, maxDelayMs = 10_000 }: RetryParameters,
): Promise<T> {
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const result = await task();
      if (failures > 0) logger.info({ what, failures }, "recovered after node errors");
      return result;
    } catch (error) {
      if (!(error instanceof RpcError) || !error.retryable) throw error;
      if (failures === 0) logger.warn({ what, error: error.message }, "node error, retrying");
      failures++;
      await sleep(Math.min(maxDelayMs, 200 * 2 ** Math.min(failures, 10)), signal);
    }
  }
}

/** Waits `ms`, or less if `signal` aborts (then throws its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
