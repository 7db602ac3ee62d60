import postgres from "postgres";
import { defaultCompactIndexesAfter } from "../../src/config.ts";
import { readCheckpoint } from "../../src/db/checkpoints.ts";
import { type Database, openDatabase } from "../../src/db/client.ts";
import { compactIndexesIfWorthIt } from "../../src/db/compact-indexes.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createIndexer } from "../../src/indexer/create-indexer.ts";
import { createLogger } from "../../src/logger.ts";
import { required } from "../../src/required.ts";
import {
  createSyntheticChain,
  type SyntheticChain,
  syntheticChainVersion,
  transactionsPerBlock,
} from "./synthetic-chain.ts";
import { createSyntheticNode } from "./synthetic-node.ts";

export type LoadDatasetParameters = {
  /** PostgreSQL server URL (any database on it); the dataset gets its own database there. */
  serverUrl: string;
  transactions: number;
  /** Database name; by default `sextant_bench_api`, suffixed with the size when it is not 10 M. */
  databaseName?: string;
  /** Blocks per indexer range. */
  rangeSize?: number;
  /**
   * The most minutes spent building missing blocks in this call (default: no limit); 0 uses what is
   * stored. A dataset left short is measured as far as it goes (see `reachedBlock`).
   */
  buildMinutes?: number;
  /** Called after every `BENCH_PROGRESS_BLOCKS` (default 2,000) blocks written. */
  onProgress?: (progress: { block: number; head: number; transactionsPerSecond: number }) => void;
};

export type LoadDatasetReturnType = {
  db: Database;
  url: string;
  chain: SyntheticChain;
  /** The last block stored: below the chain's head when the build was stopped or ran out of time. */
  reachedBlock: number;
  complete: boolean;
};

/** The default size of the benchmark's dataset. */
export const defaultTransactions = 10_000_000;

/**
 * Opens the benchmark's dataset, building what is missing first: Sextant's own indexer (fetch,
 * validation, trace mapping, transform, token reads, writer) catches up on the synthetic chain served
 * by an in-process node, so every row, link, balance and checkpoint is what indexing a real node gives.
 * A database holding another generator version or size is rebuilt; a stopped build resumes from its
 * checkpoint. What is stored gets a VACUUM ANALYZE, as autovacuum would have given a database built
 * over time.
 */
export async function loadDataset({
  serverUrl,
  transactions,
  databaseName = transactions === defaultTransactions
    ? "sextant_bench_api"
    : `sextant_bench_api_${transactions}`,
  rangeSize = 50,
  buildMinutes = Number.POSITIVE_INFINITY,
  onProgress,
}: LoadDatasetParameters): Promise<LoadDatasetReturnType> {
  const chain = createSyntheticChain({ transactions });
  const key = `v${syntheticChainVersion}/${chain.shape.transactions}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  try {
    const [exists] = await admin`SELECT 1 FROM pg_database WHERE datname = ${databaseName}`;
    if (exists) {
      const probe = postgres(url.toString(), { max: 1, onnotice: () => {} });
      const [marker] = await probe`SELECT to_regclass('bench_dataset') IS NOT NULL AS present`;
      const [stored] = required(marker, "the bench_dataset probe").present
        ? await probe`SELECT key FROM bench_dataset`
        : [];
      await probe.end();
      if (stored?.key !== key) await admin.unsafe(`DROP DATABASE ${databaseName} WITH (FORCE)`);
    }
    const [still] = await admin`SELECT 1 FROM pg_database WHERE datname = ${databaseName}`;
    if (!still) {
      await admin.unsafe(`CREATE DATABASE ${databaseName}`);
      // Only the load runs here; losing its last commits on a crash costs a resume, nothing else.
      await admin.unsafe(`ALTER DATABASE ${databaseName} SET synchronous_commit = off`);
    }
  } finally {
    await admin.end();
  }
  const db = await openDatabase({ databaseUrl: url.toString() });
  await migrate(db);
  await db.exec(
    `CREATE TABLE IF NOT EXISTS bench_dataset (key text PRIMARY KEY, complete boolean NOT NULL DEFAULT false);
     ALTER TABLE bench_dataset ADD COLUMN IF NOT EXISTS analyzed_block bigint`,
  );
  await db.query("INSERT INTO bench_dataset (key) VALUES ($1) ON CONFLICT DO NOTHING", [key]);
  const stored = async () => Number((await readCheckpoint(db)) ?? -1n);
  const markers = await db.query<{ complete: boolean; analyzed_block: number | null }>(
    "SELECT complete, analyzed_block FROM bench_dataset",
  );
  const marker = required(markers[0], "the bench_dataset row");
  if (marker.complete) return { db, url: url.toString(), chain, reachedBlock: chain.head, complete: true };

  if (buildMinutes > 0) {
    const [lock] = await db.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(7431) AS locked");
    if (!required(lock, "the advisory lock's answer").locked)
      throw new Error(`another process is building ${databaseName}; wait for it`);
    const indexer = createIndexer({
      client: createSyntheticNode(chain),
      db,
      logger: createLogger("warn"),
      rangeSize,
      tracer: "parity",
    });
    await indexer.prepare();
    const step = Number(process.env.BENCH_PROGRESS_BLOCKS ?? 2_000);
    const deadline = performance.now() + buildMinutes * 60_000;
    for (
      let from = await stored();
      from < chain.head && performance.now() < deadline;
      from = await stored()
    ) {
      const began = performance.now();
      const target = Math.min(chain.head, from + step);
      await indexer.catchUp(BigInt(target));
      const seconds = (performance.now() - began) / 1000;
      onProgress?.({
        block: target,
        head: chain.head,
        transactionsPerSecond: Math.round(((target - from) * transactionsPerBlock) / seconds),
      });
    }
  }
  const reachedBlock = await stored();
  if (marker.analyzed_block !== reachedBlock) {
    // As the indexer does once its catch-up reaches the head.
    if (reachedBlock >= chain.head)
      await compactIndexesIfWorthIt(db, { minTransactions: defaultCompactIndexesAfter });
    await db.exec("VACUUM ANALYZE");
    await db.query("UPDATE bench_dataset SET analyzed_block = $1, complete = $2", [
      reachedBlock,
      reachedBlock >= chain.head,
    ]);
  }
  return { db, url: url.toString(), chain, reachedBlock, complete: reachedBlock >= chain.head };
}
