/**
 * `npm run bench:index`: indexes the benchmark chain (bench/chain/: the one `bench/chain/serve.ts`
 * serves, else built by this run, which takes minutes) and prints, from one run, the raw fetch rate of the same data (blocks, receipts and traces, fetched
 * and JSON-parsed, nothing validated or stored, at Sextant's default batch size and concurrency)
 * beside Sextant's full indexing rate (fetch, validate, transform, write) on PostgreSQL (DATABASE_URL)
 * and PGlite.
 *
 * Each measured run lasts at least BENCH_MIN_SECONDS (default 30): whole passes over the chain are
 * repeated (a fresh database each) until it does. The three sides run in turn, BENCH_ROUNDS times
 * (default 3), and the median of each is reported.
 *
 * BENCH_STAGES=1 adds one pass per database with the stages run one after another (no overlap) and
 * timed: fetch (JSON-RPC per method), transform and token reads, and the write per statement and table (on
 * PGlite each statement alone; on PostgreSQL a range's statements overlap in its connection's pipeline).
 *
 * After the runs (BENCH_ROUNDS above 0), one more pass per database, untimed, is checked against the node at
 * the head (PostgreSQL's is the store floor's pass when that runs): each stored field of every block, transaction,
 * receipt, log and withdrawal, every frame, token transfer and batch head against what the indexer's transform makes
 * of the node's answers, every address link against the row it indexes (test/support/compare-with-node.ts), every
 * balance a transfer moved and the holder counters kept with them (test/support/token-ledger.ts); then the
 * two databases' rows against each other. A difference fails the benchmark.
 *
 * The store floor (bench/store-floor.ts; BENCH_FLOOR=0 skips it) follows the runs: one more pass into PostgreSQL,
 * its tables loaded by COPY into each database stripped of indexes and constraints, which are then
 * built: the database's CPU for that is a lower bound on its share of a pass, set beside the CPU a
 * pass may use at the target ratio once the raw fetch's own work is paid. Then the same load into the
 * indexed tables, whose indexes grow row by row, as they do for a writer that follows a chain.
 */
import { availableParallelism } from "node:os";
import { writeRange } from "../src/db/write-range.ts";
import { attachTokens } from "../src/indexer/attach-tokens.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { fetchRange } from "../src/indexer/fetch-range.ts";
import { transformRange } from "../src/indexer/transform-range.ts";
import { canonicalEntryPoints } from "../src/indexer/user-operations.ts";
import { createLogger } from "../src/logger.ts";
import { required } from "../src/required.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { addressLinkMismatches, chainMismatches } from "../test/support/compare-with-node.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  fingerprint,
  type TestDatabase,
} from "../test/support/databases.ts";
import { tokenBalanceMismatches, tokenCounterMismatches } from "../test/support/token-ledger.ts";
import { startBenchChain } from "./chain/build-chain.ts";
import { format, load, median } from "./figures.ts";
import { indexChain, indexerDefaults } from "./index-chain.ts";
import { type CpuSeconds, cpuSeconds, type Totals, timedClient, timedDatabase } from "./instrument.ts";
import { exportTables, measureStoreFloor, type TableText } from "./store-floor.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const minimumMs = Number(process.env.BENCH_MIN_SECONDS ?? 30) * 1000;
const stages = process.env.BENCH_STAGES === "1";
const floor = process.env.BENCH_FLOOR !== "0";
/** The issue's targets: Sextant's rate over the raw fetch's, per database. */
const targetRatio: Record<DatabaseKind, number> = { postgres: 0.8, pglite: 0.6 };
// The stage pass may stop early (BENCH_STAGES_TO, a block number) and run on some databases only
// (BENCH_DATABASES, e.g. `postgres`); with BENCH_ROUNDS=0 and `node --cpu-prof` it profiles that pass alone.
const stagesTo = process.env.BENCH_STAGES_TO === undefined ? undefined : Number(process.env.BENCH_STAGES_TO);
const kinds = databaseKinds.filter((kind) => (process.env.BENCH_DATABASES ?? kind).split(",").includes(kind));
const { rangeSize, concurrency, batchSize } = indexerDefaults;

/** The baseline: the same JSON-RPC calls with plain fetch, parsed and dropped. Returns the transaction count. */
async function rawFetch(url: string, head: number): Promise<number> {
  let id = 0;
  const post = async (calls: { method: string; params: unknown[] }[]) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(calls.map((call) => ({ jsonrpc: "2.0", id: id++, ...call }))),
    });
    return (await response.json()) as { result: { hash: string; transactions: unknown[] } }[];
  };
  let transactions = 0;
  const ranges: [number, number][] = [];
  for (let from = 0; from <= head; from += rangeSize)
    ranges.push([from, Math.min(from + rangeSize - 1, head)]);
  // The workers share one iterator, so each takes the next range not yet taken.
  const unfetched = ranges.values();
  const worker = async () => {
    for (const [from, to] of unfetched) {
      const hex = Array.from({ length: to - from + 1 }, (_, i) => `0x${(from + i).toString(16)}`);
      // The same calls Sextant makes: blocks, receipts and traces of the range, at once.
      const [blocks] = await Promise.all([
        post(hex.map((n) => ({ method: "eth_getBlockByNumber", params: [n, true] }))),
        post(hex.map((n) => ({ method: "eth_getBlockReceipts", params: [n] }))),
        post(hex.map((n) => ({ method: "trace_block", params: [n] }))),
      ]);
      transactions += blocks.reduce((sum, block) => sum + block.result.transactions.length, 0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return transactions;
}

/** Repeats whole passes until they add up to the minimum run time. */
async function measuredRun(pass: () => Promise<number>): Promise<{ ms: number; passes: number }> {
  let ms = 0;
  let passes = 0;
  // At least one pass, so that BENCH_MIN_SECONDS=0 measures one.
  do {
    ms += await pass();
    passes++;
  } while (ms < minimumMs);
  return { ms, passes };
}

/** One pass with the stages in sequence, timed per JSON-RPC method and per statement. */
async function stagePass(kind: DatabaseKind, url: string, head: number) {
  const rpcTotals: Totals = new Map();
  const dbTotals: Totals = new Map();
  const test = await createTestDatabase(kind);
  try {
    const client = timedClient(createRpcClient({ url, batchSize, concurrency: concurrency * 2 }), rpcTotals);
    const db = timedDatabase(test.db, dbTotals);
    const indexer = createIndexer({ client, db, logger: createLogger("silent"), rangeSize, concurrency });
    await indexer.prepare();
    const tracer = indexer.status().tracer ?? "none";
    const knownContracts = new Set<`0x${string}`>();
    const describedTokens = new Set<`0x${string}`>();
    const time = { fetch: 0, transform: 0, tokens: 0, write: 0 };
    for (let from = 0; from <= head; from += rangeSize) {
      const to = Math.min(from + rangeSize - 1, head);
      let started = performance.now();
      const range = await fetchRange(client, {
        from: BigInt(from),
        to: BigInt(to),
        tracer,
        knownContracts,
        describedTokens,
      });
      time.fetch += performance.now() - started;
      started = performance.now();
      const transformed = transformRange(range, { entryPoints: canonicalEntryPoints });
      time.transform += performance.now() - started;
      started = performance.now();
      await attachTokens({ client, db, range: transformed });
      time.tokens += performance.now() - started;
      started = performance.now();
      await writeRange(db, {
        from: range.from,
        to: range.to,
        parentHash: range.parentHash,
        rows: transformed.rows,
      });
      time.write += performance.now() - started;
    }
    return { time, rpcTotals, dbTotals };
  } finally {
    await test.drop();
  }
}

const log = (line: string) => process.stderr.write(line);

const chain = await startBenchChain({ log });
try {
  const head = chain.head;
  const blocks = head + 1;
  const transactions = await rawFetch(chain.rpcUrl, head);
  if (transactions !== chain.transactions) {
    throw new Error(
      `the node serves ${transactions} transactions, the chain was built with ${chain.transactions}`,
    );
  }
  const baseline = "raw fetch (baseline)";
  const sides = [baseline, ...kinds.map((kind) => `sextant index → ${kind}`)];
  const runs = new Map<string, { ms: number; passes: number; load: string; cpu: CpuSeconds | null }[]>(
    sides.map((side) => [side, []]),
  );
  for (let round = 1; round <= rounds; round++) {
    for (const side of sides) {
      const kind = kinds.find((candidate) => side.endsWith(candidate));
      const startLoad = load();
      const startCpu = cpuSeconds();
      const run = await measuredRun(async () => {
        if (kind) return indexChain(kind, chain.rpcUrl, head, transactions);
        const started = performance.now();
        await rawFetch(chain.rpcUrl, head);
        return performance.now() - started;
      });
      const endCpu = cpuSeconds();
      const cpu =
        startCpu && endCpu
          ? {
              self: (endCpu.self - startCpu.self) / run.passes,
              anvil: (endCpu.anvil - startCpu.anvil) / run.passes,
              postgres: (endCpu.postgres - startCpu.postgres) / run.passes,
            }
          : null;
      runs.get(side)?.push({ ...run, load: `${startLoad}→${load()}`, cpu });
      log(
        `round ${round}: ${side}: ${run.passes} passes in ${format(run.ms)} ms (load ${startLoad}→${load()})\n`,
      );
    }
  }

  // BENCH_ROUNDS=0 skips the measured runs (for BENCH_STAGES alone).
  if (rounds > 0) {
    const rate = (run: { ms: number; passes: number }) => (run.passes * blocks * 1000) / run.ms;
    const rawRates = runs.get(baseline)?.map(rate) ?? [];
    console.log(
      `\nindexing ${format(blocks)} blocks, ${format(transactions)} transactions; median of ${rounds} runs of ≥ ${minimumMs / 1000} s (anvil on loopback)\n`,
    );
    console.log(
      "| run | passes per run | time per pass | blocks/s | transactions/s | ratio to raw fetch | ratio per round | CPU s per pass: this process · anvil · PostgreSQL (cores busy) | load (1 min) |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---|---|---|");
    for (const side of sides) {
      const sideRuns = runs.get(side) ?? [];
      const rates = sideRuns.map(rate);
      const blocksPerSecond = median(rates);
      const perRound = rates
        .map((value, i) => (value / required(rawRates[i], `the raw fetch rate of round ${i + 1}`)).toFixed(2))
        .join(", ");
      const passMs = median(sideRuns.map((run) => run.ms / run.passes));
      const cpus = sideRuns.flatMap((run) => (run.cpu ? [run.cpu] : []));
      const cpu =
        cpus.length === 0
          ? "—"
          : (() => {
              const [self, anvil, postgres] = (["self", "anvil", "postgres"] as const).map((party) =>
                median(cpus.map((reading) => reading[party])),
              ) as [number, number, number];
              return `${self.toFixed(1)} · ${anvil.toFixed(1)} · ${postgres.toFixed(1)} (${((1000 * (self + anvil + postgres)) / passMs).toFixed(2)})`;
            })();
      console.log(
        `| ${side} | ${sideRuns.map((run) => run.passes).join(", ")} | ${format(passMs)} ms | ${format(blocksPerSecond)} | ${format((blocksPerSecond * transactions) / blocks)} | ${(blocksPerSecond / median(rawRates)).toFixed(2)} | ${perRound} | ${cpu} | ${sideRuns.map((run) => run.load).join(", ")} |`,
      );
    }
  }

  // What the runs measured is checked once per database, outside them: a writer that stored wrong rows
  // would make its rate meaningless.
  const fingerprints = new Map<DatabaseKind, Record<string, string>>();
  const checkAgainstNode = async (kind: DatabaseKind, test: TestDatabase) => {
    const started = performance.now();
    const spent: string[] = [];
    const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const result = await work();
      spent.push(`${what} ${format(performance.now() - start)}`);
      return result;
    };
    const client = createRpcClient({ url: chain.rpcUrl, batchSize });
    const stored = await timed("rows", () => chainMismatches(test.db, client, BigInt(head)));
    const links = await timed("links", () => addressLinkMismatches(test.db));
    const balances = await timed("balances", () => tokenBalanceMismatches(test.db, client, BigInt(head)));
    const counters = await timed("counters", () => tokenCounterMismatches(test.db));
    const wrongCounters = Object.values(counters).reduce((sum, rows) => sum + rows.length, 0);
    const byType = Object.entries(balances.byType)
      .map(([type, count]) => `${type} ${format(count)}`)
      .join(", ");
    console.log(
      `\nchecked against the node at block ${format(head)} → ${kind} in ${format(performance.now() - started)} ms (${spent.join(", ")}): ${format(stored.compared.blocks)} blocks, ${format(stored.compared.transactions)} transactions with their receipts, ${format(stored.compared.logs)} logs, ${format(stored.compared.withdrawals)} withdrawals, ${format(stored.compared.frames)} frames and ${format(stored.compared.tokenTransfers)} token transfers, ${stored.mismatches.length} differences from the node's answers; ${links.length} address links unlike the rows they index; ${format(balances.compared)} balances (${byType}), ${balances.mismatches.length} unlike the node's; ${wrongCounters} holder counters unlike the balances`,
    );
    if (stored.mismatches.length + links.length + balances.mismatches.length + wrongCounters > 0) {
      throw new Error(
        `${kind}: stored rows, balances or counters are wrong: ${JSON.stringify({ rows: stored.mismatches.slice(0, 5), links: links.slice(0, 5), balances: balances.mismatches.slice(0, 5), counters })}`,
      );
    }
    fingerprints.set(kind, await timed("rows hashed", () => fingerprint(test.db)));
    console.log(`${kind}: ${spent.at(-1)} ms`);
  };

  if (floor && kinds.includes("postgres")) {
    let exported: TableText[] = [];
    await indexChain("postgres", chain.rpcUrl, head, transactions, async (test) => {
      if (rounds > 0) await checkAgainstNode("postgres", test);
      exported = await exportTables(required(test.url, "the PostgreSQL database's URL"));
    });
    const rawRuns = runs.get(baseline) ?? [];
    const rawPassMs = rawRuns.length > 0 ? median(rawRuns.map((run) => run.ms / run.passes)) : null;
    const cores = availableParallelism();
    const rawCpus = rawRuns.flatMap((run) => (run.cpu ? [run.cpu.self + run.cpu.anvil] : []));
    const rawCpu = rawCpus.length > 0 ? median(rawCpus) : null;
    console.log(
      `\nstore floor: one pass's ${format(exported.reduce((sum, table) => sum + table.rows, 0))} rows in ${exported.length} tables, loaded by COPY into tables without indexes or constraints, which are then built`,
    );
    console.log(
      `| database | wall time | database CPU s: COPY · indexes (total) | target ratio | CPU s a pass may use beyond the raw fetch's own (${cores} cores) | floor within it |\n|---|---:|---:|---:|---:|---|`,
    );
    const maintained: string[] = [];
    for (const kind of kinds) {
      const measured = await measureStoreFloor(kind, exported);
      const grown = await measureStoreFloor(kind, exported, { indexes: "maintained" });
      maintained.push(
        `| ${kind} | ${format(grown.ms)} ms | ${grown.cpuSeconds.toFixed(1)} | ${(grown.cpuSeconds / measured.cpuSeconds).toFixed(2)} |`,
      );
      const budget =
        rawPassMs !== null && rawCpu !== null
          ? (cores * rawPassMs) / 1000 / targetRatio[kind] - rawCpu
          : null;
      console.log(
        `| ${kind} | ${format(measured.ms)} ms | ${measured.loadCpuSeconds.toFixed(1)} · ${(measured.cpuSeconds - measured.loadCpuSeconds).toFixed(1)} (${measured.cpuSeconds.toFixed(1)}) | ${targetRatio[kind]} | ${budget === null ? "—" : budget.toFixed(1)} | ${budget === null ? "—" : measured.cpuSeconds <= budget ? "yes" : "no"} |`,
      );
    }
    console.log(
      "\nthe same rows by COPY into the indexed tables, each index growing row by row as it does for a writer that follows a chain\n| database | wall time | database CPU s | over the floor |\n|---|---:|---:|---:|",
    );
    for (const line of maintained) console.log(line);
  }

  if (rounds > 0) {
    for (const kind of kinds.filter((kind) => !fingerprints.has(kind))) {
      await indexChain(kind, chain.rpcUrl, head, transactions, (test) => checkAgainstNode(kind, test));
    }
    // Same SQL for both databases: the same chain must leave the same rows in each.
    const [postgresRows, pgliteRows] = [fingerprints.get("postgres"), fingerprints.get("pglite")];
    if (postgresRows && pgliteRows) {
      const differing = Object.keys(postgresRows).filter(
        (table) => postgresRows[table] !== pgliteRows[table],
      );
      const rows = Object.values(postgresRows).reduce((sum, print) => sum + Number(print.split(":")[0]), 0);
      console.log(
        `\nPostgreSQL and PGlite: ${Object.keys(postgresRows).length} tables, ${format(rows)} rows, ${differing.length === 0 ? "the same rows in each" : `different in ${differing.join(", ")}`}`,
      );
      if (differing.length > 0)
        throw new Error(`PostgreSQL and PGlite hold different rows in ${differing.join(", ")}`);
    }
  }

  if (stages) {
    for (const kind of kinds) {
      const { time, rpcTotals, dbTotals } = await stagePass(
        kind,
        chain.rpcUrl,
        Math.min(stagesTo ?? head, head),
      );
      const total = time.fetch + time.transform + time.tokens + time.write;
      console.log(
        `\nstages in sequence → ${kind}, blocks 0 to ${Math.min(stagesTo ?? head, head)}: ${format(total)} ms`,
      );
      console.log("| stage | ms | share |\n|---|---:|---:|");
      for (const [stage, ms] of Object.entries(time)) {
        console.log(`| ${stage} | ${format(ms)} | ${((100 * ms) / total).toFixed(0)} % |`);
      }
      for (const [title, totals] of [
        ["JSON-RPC (wall time per method, overlapping)", rpcTotals],
        ["statements (time per verb and table)", dbTotals],
      ] as const) {
        console.log(`\n| ${title} | ms | calls |\n|---|---:|---:|`);
        const sorted = [...totals].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14);
        for (const [key, { ms, calls }] of sorted)
          console.log(`| ${key} | ${format(ms)} | ${format(calls)} |`);
      }
    }
  }
} finally {
  await chain.stop();
}
