import type { Logger } from "../logger.ts";
import { readCheckpoint } from "./checkpoints.ts";
import { type Database, maintenanceSession, type Queryable } from "./client.ts";

export type CompactIndexesParameters = {
  logger?: Logger;
  /** Stops the compaction before its next index; the index being rebuilt is finished first. */
  signal?: AbortSignal;
};

export type CompactIndexesReturnType = {
  /** Indexes rebuilt. */
  indexes: number;
  /** Their size before and after, in bytes. */
  bytesBefore: number;
  bytesAfter: number;
  /** Rebuilds an earlier compaction left unfinished (a stopped process), dropped first. */
  abandoned: string[];
  milliseconds: number;
} | null;

/**
 * Rebuilds every index of the schema's tables (but the migrations' own) packed, one at a time, with
 * `REINDEX INDEX CONCURRENTLY`: reads and writes go on meanwhile, and only one index's copy takes disk
 * space at a time. PostgreSQL only (null on PGlite, whose embedded databases hold small chains and could
 * not go on serving meanwhile).
 *
 * Why: the writer grows an index keyed by address (or by token, topic or hash) in the middle of the tree,
 * at the end of each key's range, and a full page there splits in half, so those indexes stay 50–70 %
 * full; balances updated in place leave dead entries besides. Rebuilt, a B-tree is packed to 90 %: the
 * benchmark dataset's indexes lose 20–64 % of their size (docs/performance.md, "Index compaction").
 */
export async function compactIndexes(
  db: Database,
  { logger, signal }: CompactIndexesParameters = {},
): Promise<CompactIndexesReturnType> {
  if (db.kind !== "postgres") return null;
  const began = performance.now();
  const indexedBlock = await readCheckpoint(db);
  // A statement_timeout of the role or the database, meant for reads, would cancel a large index's rebuild
  // every time.
  const { abandoned, indexes, bytesBefore, bytesAfter } = await maintenanceSession(db, async (session) => {
    const abandoned = await dropAbandonedRebuilds(session);
    // A hash index is built with as many buckets as the table's estimated rows need: fresh statistics
    // size it right (the transactions' hash index 10 % smaller than from the estimate a first sync leaves).
    await session.exec("ANALYZE");
    const indexes = await session.query<{ name: string; bytes: number }>(
      `SELECT i.indexrelid::regclass::text AS name, pg_relation_size(i.indexrelid) AS bytes
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> 'schema_migrations' AND i.indisvalid
     ORDER BY bytes DESC, name`,
    );
    let bytesBefore = 0;
    let bytesAfter = 0;
    for (const index of indexes) {
      signal?.throwIfAborted();
      // A regclass's text is the index's name quoted as SQL needs it.
      await session.exec(`REINDEX INDEX CONCURRENTLY ${index.name}`);
      const [after] = await session.query<{ bytes: number }>(
        "SELECT pg_relation_size($1::regclass) AS bytes",
        [index.name],
      );
      bytesBefore += index.bytes;
      bytesAfter += after?.bytes ?? 0;
      logger?.debug({ index: index.name, before: index.bytes, after: after?.bytes }, "index compacted");
    }
    return { abandoned, indexes, bytesBefore, bytesAfter };
  });
  if (indexedBlock !== null) {
    await db.query(
      `INSERT INTO checkpoints (name, block_number) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET block_number = excluded.block_number`,
      [compactionCheckpoint, indexedBlock.toString()],
    );
  }
  return {
    indexes: indexes.length,
    bytesBefore,
    bytesAfter,
    abandoned,
    milliseconds: performance.now() - began,
  };
}

/**
 * Drops the invalid copies a `REINDEX ... CONCURRENTLY` leaves behind when it is cut off (its connection
 * closed by a stopping process): PostgreSQL keeps writing every row into them until they are dropped.
 * Their names end in `_ccnew` or `_ccold` (and a number when taken); one a running rebuild is building is
 * left alone.
 */
export async function dropAbandonedRebuilds(db: Queryable): Promise<string[]> {
  const abandoned = await db.query<{ name: string }>(
    `SELECT i.indexrelid::regclass::text AS name
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid
       AND c.relname ~ '_cc(new|old)[0-9]*$'
       AND NOT EXISTS (SELECT FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid)`,
  );
  for (const { name } of abandoned) await db.exec(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  return abandoned.map(({ name }) => name);
}

/** The checkpoint that holds the last block stored when the indexes were last compacted. */
export const compactionCheckpoint = "indexes_compacted";

export type ShouldCompactIndexesParameters = {
  /** Transactions stored now (counted up to `minTransactions`: more do not change the answer). */
  stored: number;
  /** The last block stored now. */
  indexedBlock: bigint;
  /** The last block stored when the indexes were last compacted; null when they never were. */
  compactedBlock: bigint | null;
  /** The least a compaction is worth: with fewer transactions stored there is none; 0 turns it off. */
  minTransactions: number;
};

/**
 * Whether the indexes are worth rebuilding: at least `minTransactions` stored, and never compacted (the
 * first sync, however many restarts it took) or the chain's height doubled since. A compaction rewrites
 * every index, so triggered only as the chain doubles, its total work stays within about twice the final
 * indexes' size.
 */
export function shouldCompactIndexes({
  stored,
  indexedBlock,
  compactedBlock,
  minTransactions,
}: ShouldCompactIndexesParameters): boolean {
  if (minTransactions <= 0 || stored < minTransactions) return false;
  return compactedBlock === null || indexedBlock >= 2n * compactedBlock;
}

export type CompactIndexesIfWorthItParameters = CompactIndexesParameters & {
  /** `shouldCompactIndexes`'s least number of transactions stored. */
  minTransactions: number;
};

/**
 * Compacts the indexes (`compactIndexes`) when `shouldCompactIndexes` says it is worth it, as the indexer
 * does each time its catch-up reaches the head; null when it is not (or on PGlite).
 */
export async function compactIndexesIfWorthIt(
  db: Database,
  { minTransactions, ...parameters }: CompactIndexesIfWorthItParameters,
): Promise<CompactIndexesReturnType> {
  if (db.kind !== "postgres" || minTransactions <= 0) return null;
  const [stored, indexedBlock, compactedBlock] = await Promise.all([
    countStoredTransactions(db, minTransactions),
    readCheckpoint(db),
    readCheckpoint(db, compactionCheckpoint),
  ]);
  if (
    indexedBlock === null ||
    !shouldCompactIndexes({ stored, indexedBlock, compactedBlock, minTransactions })
  )
    return null;
  parameters.logger?.info({ stored, indexedBlock: Number(indexedBlock) }, "compacting the indexes");
  return compactIndexes(db, parameters);
}

/**
 * Transactions stored, counted up to `atMost`: exact where the statistics' live-row count lags the writes
 * by up to seconds (a catch-up that ends within them read 0), and reading no more than `atMost` rows.
 */
async function countStoredTransactions(db: Queryable, atMost: number): Promise<number> {
  const [row] = await db.query<{ rows: number }>(
    "SELECT count(*)::int AS rows FROM (SELECT FROM transactions LIMIT $1) t",
    [atMost],
  );
  return Number(row?.rows ?? 0);
}
