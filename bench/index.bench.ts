/**
 * `npm run bench:index`: indexes a demo chain and prints, from one run, the raw fetch rate of the same
 * data (blocks, receipts and traces, fetched and JSON-parsed, nothing validated or stored) beside Sextant's full indexing rate
 * (fetch, validate, transform, write) on PGlite and, when DATABASE_URL is set, PostgreSQL.
 *
 * Options (environment): BENCH_ROUNDS (scenario rounds, default 120), BENCH_REPEAT (default 3; the best
 * run of each side is reported).
 */
import { startAnvil } from "../src/demo/anvil.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, databaseKinds } from "../test/support/databases.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 120);
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const rangeSize = 100;
const concurrency = 4;
const batchSize = 100;

/** The baseline: the same JSON-RPC calls with plain fetch, parsed and dropped. */
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
  let next = 0;
  const worker = async () => {
    while (next < ranges.length) {
      const [from, to] = ranges[next++];
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const hex = numbers.map((n) => `0x${n.toString(16)}`);
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

function best(times: number[]): number {
  return Math.min(...times);
}

const anvil = await startAnvil();
try {
  process.stderr.write(`building the demo chain (${rounds} rounds)...\n`);
  const scenario = await runScenario({ rpcUrl: anvil.rpcUrl, rounds });
  const head = Number(scenario.headBlockNumber);
  const blocks = head + 1;

  const rawTimes: number[] = [];
  let transactions = 0;
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    transactions = await rawFetch(anvil.rpcUrl, head);
    rawTimes.push(performance.now() - started);
  }
  const raw = best(rawTimes);
  const rows = [["raw fetch (baseline)", raw, 1]];

  for (const kind of databaseKinds) {
    const times: number[] = [];
    for (let i = 0; i < repeat; i++) {
      const test = await createTestDatabase(kind);
      const client = createRpcClient({ url: anvil.rpcUrl, batchSize, concurrency: concurrency * 2 });
      const indexer = createIndexer({
        client,
        db: test.db,
        logger: createLogger("silent"),
        rangeSize,
        concurrency,
      });
      const started = performance.now();
      await indexer.prepare();
      await indexer.catchUp(BigInt(head));
      times.push(performance.now() - started);
      await test.drop();
    }
    rows.push([`sextant index → ${kind}`, best(times), raw / best(times)]);
  }

  const rate = (ms: number, count: number) => Math.round((count * 1000) / ms).toLocaleString("en-US");
  console.log(
    `\nindexing ${blocks} blocks, ${transactions} transactions (best of ${repeat}, anvil on loopback)\n`,
  );
  console.log("| run | time | blocks/s | transactions/s | ratio to raw fetch |");
  console.log("|---|---:|---:|---:|---:|");
  for (const [name, ms, ratio] of rows as [string, number, number][]) {
    console.log(
      `| ${name} | ${Math.round(ms)} ms | ${rate(ms, blocks)} | ${rate(ms, transactions)} | ${ratio.toFixed(2)} |`,
    );
  }
} finally {
  await anvil.stop();
}
