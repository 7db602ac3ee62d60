import type { Queryable } from "../client.ts";

export type ChainHead = {
  /** Last indexed block, null before the first. */
  blockNumber: number | null;
  /** Mean time between the last 100 indexed blocks, in milliseconds; null with fewer than two. */
  averageBlockTimeMs: number | null;
};

/** The indexed head and the recent average block time, in one query. */
export async function readChainHead(db: Queryable): Promise<ChainHead> {
  const [row] = await db.query<{ block_number: number | null; average_ms: string | null }>(
    `SELECT (SELECT block_number FROM checkpoints WHERE name = 'blocks') AS block_number,
       (SELECT (max(timestamp) - min(timestamp)) * 1000.0 / NULLIF(count(*) - 1, 0)
        FROM (SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 100) recent) AS average_ms`,
  );
  return {
    blockNumber: row?.block_number ?? null,
    averageBlockTimeMs: row?.average_ms == null ? null : Math.round(Number(row.average_ms)),
  };
}

export type LatestBlock = { number: number; timestamp: number };

/** The highest stored block's number and timestamp (seconds), or null for an empty database. */
export async function readLatestBlock(db: Queryable): Promise<LatestBlock | null> {
  const [row] = await db.query<LatestBlock>(
    "SELECT number, timestamp FROM blocks ORDER BY number DESC LIMIT 1",
  );
  return row ?? null;
}
