import type { Logger } from "../logger.ts";
import { RpcError } from "../rpc/errors.ts";
import { sleep } from "../sleep.ts";

export type RetryParameters = {
  /** What is being attempted, for the log. */
  what: string;
  logger: Logger;
  signal?: AbortSignal;
  /** Longest wait between attempts. */
  maxDelayMs?: number;
};

/** How often a failure that lasts is logged again. */
const reportEveryMs = 30_000;

/**
 * Runs `task` until it succeeds, waiting longer after each retryable RPC failure (up to `maxDelayMs`),
 * so the indexer rides out a node that is down or restarting. A burst of failures is logged when it
 * starts, every 30 s while it lasts, and when it ends. Non-retryable errors are thrown at once.
 */
export async function retryForever<T>(
  task: () => Promise<T>,
  { what, logger, signal, maxDelayMs = 10_000 }: RetryParameters,
): Promise<T> {
  let failures = 0;
  let reportedAt = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const result = await task();
      if (failures > 0) logger.info({ what, failures }, "recovered after node errors");
      return result;
    } catch (error) {
      if (!(error instanceof RpcError) || !error.retryable) throw error;
      // One line when the trouble starts, then one a while: a node that stays away is never silent, and
      // only the short message is logged, never a page the node sent instead of JSON-RPC.
      if (Date.now() - reportedAt >= reportEveryMs) {
        reportedAt = Date.now();
        logger.warn(
          { what, error: error.shortMessage, failures },
          failures === 0 ? "node error, retrying" : "node still failing, retrying",
        );
      }
      failures++;
      await sleep(Math.min(maxDelayMs, 200 * 2 ** Math.min(failures, 10)), signal);
    }
  }
}
