/**
 * Times pages of the hot address of the API benchmark's dataset one request at a time, with the time the
 * process spent in garbage collection per request, for profiling a page rather than benchmarking the API:
 * `node --cpu-prof --import tsx bench/profile-pages.ts` writes a CPU profile of the server and its client
 * (both in this process, as in `bench:api`).
 *
 * Options (environment): BENCH_TRANSACTIONS (the dataset's size, default 10,000,000; it must be built),
 * DATABASE_URL (the PostgreSQL server, default postgres://postgres@127.0.0.1:5432/postgres), BENCH_PATHS
 * (space-separated paths under `/api/v2/addresses/{hot address}`, default the oldest-first transactions),
 * BENCH_REQUESTS (timed requests per path after 20 untimed, default 300).
 */
import { PerformanceObserver } from "node:perf_hooks";
import { serve } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { defaultTransactions, loadDataset } from "./dataset/load-dataset.ts";
import { readAnswer } from "./read-answer.ts";

const { db, chain, complete } = await loadDataset({
  serverUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  transactions: Number(process.env.BENCH_TRANSACTIONS ?? defaultTransactions),
  buildMinutes: 0,
});
if (!complete)
  throw new Error("the dataset is not built: run bench/dataset/generate.ts with the same size first");
const config = { ...loadConfig({ env: {} }), host: "127.0.0.1", port: 0 };
// Pages are computed at every request, as `bench:api` times them.
const app = await serve({ config: { ...config, pageCacheMb: 0 }, db, logger: createLogger("fatal") });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v2/addresses/${chain.addresses.hot}`;
const paths = (process.env.BENCH_PATHS ?? "/transactions?sort=block_number&order=asc").split(" ");
const requests = Number(process.env.BENCH_REQUESTS ?? 300);

let garbageCollectionMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) garbageCollectionMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

console.log("| path | KB | p10 | p50 | p99 | GC per request |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const path of paths) {
  let size = 0;
  for (let i = 0; i < 20; i++) size = await readAnswer(base + path);
  const times: number[] = [];
  const collectedBefore = garbageCollectionMs;
  for (let i = 0; i < requests; i++) {
    const began = performance.now();
    await readAnswer(base + path);
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  const at = (fraction: number) => (times[Math.floor(requests * fraction)] ?? Number.NaN).toFixed(2);
  const collected = (garbageCollectionMs - collectedBefore) / requests;
  console.log(
    `| ${path} | ${(size / 1024).toFixed(1)} | ${at(0.1)} | ${at(0.5)} | ${at(0.99)} | ${collected.toFixed(2)} |`,
  );
}
await app.close();
await db.close();
