import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { BaseError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { retry } from "../retry.ts";

export type RetryForeverParameters = {
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
 * The indexer's {@link retry}: runs `task` until it succeeds, so the indexer rides out a node or a
 * database that is down or restarting, and throws at once what asking again cannot fix. A burst of
 * failures is logged when it starts, every 30 s while it lasts, and when it ends.
 */
export function retryForever<T>(
  task: (failures: number) => Promise<T>,
  { what, logger, signal, maxDelayMs = 10_000 }: RetryForeverParameters,
): Promise<T> {
  let reportedAt = 0;
  let startedAt = 0;
  let databaseLost = false;
  return retry(task, {
    signal,
    maxDelayMs,
    onRetry(error, failures) {
      if (failures === 1) {
        startedAt = Date.now();
        databaseLost = isDatabaseUnavailable(error);
      }
      // One line when the trouble starts, then one a while: a node that stays away is never silent, and
      // only the short message is logged, never a page the node sent instead of JSON-RPC.
      if (Date.now() - reportedAt < reportEveryMs) return;
      reportedAt = Date.now();
      const lasting = failures > 1;
      const message = isDatabaseUnavailable(error)
        ? `database ${lasting ? "still " : ""}unavailable; waiting for it`
        : `node ${lasting ? "still failing" : "error"}, retrying`;
      logger.warn({ what, error: shortMessageOf(error), failures }, message);
    },
    onRecovered(failures) {
      const seconds = Math.round((Date.now() - startedAt) / 1000);
      const message = databaseLost ? "database back; indexing again" : "recovered after node errors";
      logger.info({ what, failures, seconds }, message);
    },
  });
}

function shortMessageOf(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}
