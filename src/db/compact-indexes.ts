import type { Logger } from "../logger.ts";
import type { Database, Queryable } from "./client.ts";
import { tables } from "./tables.ts";

/** The schema's own tables, whose indexes the compaction rebuilds (not the migrations' bookkeeping). */
const tableNames = `{${Object.values(tables)
  .map((table) => table.name)
  .join(",")}}`;

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
 * Rebuilds every index of the schema's tables packed, one at a time, with `REINDEX INDEX CONCURRENTLY`:
 * reads and writes go on meanwhile, and only one index's copy takes disk space at a time. PostgreSQL only
 * (null on PGlite, whose embedded databases hold small chains and could not go on serving meanwhile).
 *
 * Why: the writer grows an index keyed by address (or by token, topic or hash) in the middle of the tree,
 * at the end of each key's range, and a full page there splits in half, so those indexes stay 50–70 %
 * full; balances updated in place leave dead entries besides. Rebuilt, a B-tree is packed to 90 %: the
 * benchmark dataset's indexes lose 20–55 % of their size (docs/performance.md, "Index compaction").
 */
export async function compactIndexes(
  db: Database,
  { logger, signal }: CompactIndexesParameters = {},
): Promise<CompactIndexesReturnType> {
  if (db.kind !== "postgres") return null;
  const began = performance.now();
  const abandoned = await dropAbandonedRebuilds(db);
  const indexes = await db.query<{ name: string; bytes: number }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_relation_size(i.indexrelid) AS bytes
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ANY($1::text[]) AND i.indisvalid
     ORDER BY bytes DESC, name`,
    [tableNames],
  );
  let bytesBefore = 0;
  let bytesAfter = 0;
  for (const index of indexes) {
    signal?.throwIfAborted();
    // A regclass's text is the index's name quoted as SQL needs it.
    await db.exec(`REINDEX INDEX CONCURRENTLY ${index.name}`);
    const [after] = await db.query<{ bytes: number }>("SELECT pg_relation_size($1::regclass) AS bytes", [
      index.name,
    ]);
    bytesBefore += index.bytes;
    bytesAfter += after?.bytes ?? 0;
    logger?.debug({ index: index.name, before: index.bytes, after: after?.bytes }, "index compacted");
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

export type ShouldCompactIndexesParameters = {
  /** Transactions this process wrote since it started or last compacted. */
  written: number;
  /** Transactions stored now (PostgreSQL's live-row estimate). */
  stored: number;
  /** The least a compaction is worth: fewer written transactions never trigger one; 0 turns it off. */
  minTransactions: number;
};

/**
 * Whether the indexes are worth rebuilding once catch-up reaches the head: when the catch-up wrote at
 * least `minTransactions` and at least half of what is stored (the first sync; a restart that doubled the
 * chain). A compaction rewrites every index, so triggered only as the data doubles, its total work stays
 * within twice the final indexes' size; a restart after a short stop never triggers one.
 */
export function shouldCompactIndexes({
  written,
  stored,
  minTransactions,
}: ShouldCompactIndexesParameters): boolean {
  return minTransactions > 0 && written >= minTransactions && written * 2 >= stored;
}

/** Transactions stored, as PostgreSQL's statistics count live rows (no scan); 0 when unknown. */
export async function estimateStoredTransactions(db: Queryable): Promise<number> {
  const [row] = await db.query<{ rows: number | null }>(
    "SELECT n_live_tup AS rows FROM pg_stat_user_tables WHERE relid = 'transactions'::regclass",
  );
  return Number(row?.rows ?? 0);
}
