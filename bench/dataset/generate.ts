/**
 * Builds (or resumes) the API benchmark's dataset without benchmarking it, for a long build in the
 * background: `nice -n 10 node --import tsx bench/dataset/generate.ts`.
 *
 * Options (environment): BENCH_TRANSACTIONS (default 10,000,000), DATABASE_URL (the PostgreSQL server,
 * default postgres://postgres@127.0.0.1:5432/postgres), BENCH_RANGE_SIZE (blocks per range, default 50),
 * BENCH_BUILD_MINUTES (stop building after this long; what is stored stays usable and a rerun resumes).
 */
import { defaultTransactions, loadDataset } from "./load-dataset.ts";

const transactions = Number(process.env.BENCH_TRANSACTIONS ?? defaultTransactions);
const began = performance.now();
const { db, chain, reachedBlock, complete } = await loadDataset({
  serverUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  transactions,
  rangeSize: Number(process.env.BENCH_RANGE_SIZE ?? 50),
  buildMinutes: Number(process.env.BENCH_BUILD_MINUTES ?? Number.POSITIVE_INFINITY),
  onProgress: ({ block, head, transactionsPerSecond }) => {
    const elapsed = Math.round((performance.now() - began) / 1000);
    process.stderr.write(
      `${new Date().toISOString()} block ${block}/${head} (${((block / head) * 100).toFixed(1)} %), ${transactionsPerSecond} tx/s now, ${elapsed} s elapsed\n`,
    );
  },
});
const seconds = (performance.now() - began) / 1000;
console.log(
  `${complete ? "complete" : "partial"}: blocks 0..${reachedBlock} of ${chain.head} stored (${seconds.toFixed(0)} s in this run)`,
);
console.log(JSON.stringify(chain.shape));
await db.close();
