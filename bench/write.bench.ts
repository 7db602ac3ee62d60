/**
 * `npm run bench:write`: Sextant's writer against raw SQL on the same rows. The rows are the API
 * dataset's synthetic chain (bench/dataset/: 100 transactions a block, with logs, traces, token
 * transfers and mints), fetched from its in-process node and transformed by Sextant once, in memory.
 * Then, on PostgreSQL (DATABASE_URL) and PGlite, each in a fresh database per pass:
 * - raw SQL (the baseline): every table's rows with one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO
 *   NOTHING` per table and range, in one transaction per range (how every table was written before the
 *   registry chose COPY on PGlite);
 * - Sextant: `writeRange`, which also checks the chain, stamps token types, keeps balances and holder
 *   counts and moves the checkpoint.
 * Both sides run in turn BENCH_ROUNDS times (default 3); the medians and their ratio are printed.
 * BENCH_WRITE_TRANSACTIONS sets the chain's size (default 100,000).
 */
import { type ColumnType, insertRows, type TableRows } from "../src/db/table-rows.ts";
import type { RangeRows } from "../src/db/tables.ts";
import { writeRange } from "../src/db/write-range.ts";
import { attachTokens } from "../src/indexer/attach-tokens.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { fetchRange } from "../src/indexer/fetch-range.ts";
import { transformRange } from "../src/indexer/transform-range.ts";
import { createLogger } from "../src/logger.ts";
import { createTestDatabase, databaseKinds } from "../test/support/databases.ts";
import { createSyntheticChain } from "./dataset/synthetic-chain.ts";
import { createSyntheticNode } from "./dataset/synthetic-node.ts";
import { format, load, median } from "./figures.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const transactions = Number(process.env.BENCH_WRITE_TRANSACTIONS ?? 100_000);
const rangeSize = 50;

const chain = createSyntheticChain({ transactions });
const client = createSyntheticNode(chain);

type Range = { from: bigint; to: bigint; parentHash: string; rows: RangeRows };

/** The chain's ranges as Sextant's indexer hands them to the writer, token rows included. */
async function prepareRanges(): Promise<Range[]> {
  const scratch = await createTestDatabase(databaseKinds.at(-1) ?? "pglite");
  try {
    // Token rows depend on what is stored (a known token is not read again): they are taken as a
    // catch-up from genesis makes them, one range after the other.
    const indexer = createIndexer({ client, db: scratch.db, logger: createLogger("silent") });
    await indexer.prepare();
    const ranges: Range[] = [];
    for (let from = 0; from <= chain.head; from += rangeSize) {
      const to = Math.min(from + rangeSize - 1, chain.head);
      const fetched = await fetchRange(client, { from: BigInt(from), to: BigInt(to), tracer: "parity" });
      const transformed = transformRange(fetched);
      await attachTokens({ client, db: scratch.db, range: transformed });
      const range = {
        from: fetched.from,
        to: fetched.to,
        parentHash: fetched.parentHash,
      };
      await writeRange(scratch.db, { ...range, rows: transformed.rows });
      ranges.push({ ...range, rows: transformed.rows });
    }
    return ranges;
  } finally {
    await scratch.drop();
  }
}

async function rawInsert(ranges: Range[], kind: "postgres" | "pglite"): Promise<number> {
  const test = await createTestDatabase(kind);
  try {
    const began = performance.now();
    for (const range of ranges) {
      await test.db.transaction(async (tx) => {
        for (const rows of Object.values(range.rows) as TableRows<Record<string, ColumnType>>[]) {
          await insertRows(tx, rows, { onConflict: "ON CONFLICT DO NOTHING" });
        }
      });
    }
    return performance.now() - began;
  } finally {
    await test.drop();
  }
}

async function sextant(ranges: Range[], kind: "postgres" | "pglite"): Promise<number> {
  const test = await createTestDatabase(kind);
  try {
    const began = performance.now();
    for (const range of ranges) await writeRange(test.db, range);
    return performance.now() - began;
  } finally {
    await test.drop();
  }
}

const preparing = performance.now();
const ranges = await prepareRanges();
const rows = ranges.reduce(
  (sum, range) => sum + Object.values(range.rows).reduce((count, table) => count + table.length, 0),
  0,
);
console.log(
  `${chain.head + 1} blocks, ${format(transactions)} transactions, ${format(rows)} rows in ${ranges.length} ranges (prepared in ${format((performance.now() - preparing) / 1000)} s)`,
);
console.log(
  "| database | raw SQL (unnest inserts) | Sextant writeRange | rows/s (Sextant) | ratio raw / Sextant | load |",
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const kind of databaseKinds) {
  const raw: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round < rounds; round++) {
    raw.push(await rawInsert(ranges, kind));
    ours.push(await sextant(ranges, kind));
  }
  const [r, s] = [median(raw), median(ours)];
  console.log(
    `| ${kind} | ${(r / 1000).toFixed(1)} s | ${(s / 1000).toFixed(1)} s | ${format(rows / (s / 1000))} | ${(r / s).toFixed(2)} | ${load()} |`,
  );
}
