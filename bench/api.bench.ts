/**
 * `npm run bench:api`: indexes the demo chain and prints, per endpoint, the time of one API request
 * (routing, validation, the page's queries, decoding, actions, rendering, serialization) beside the
 * baseline run in the same process on the same database: the one raw SQL query that lists the page's
 * rows, nothing looked up, decoded or rendered. A ratio near 1 means the API adds little to the query.
 *
 * Options (environment): BENCH_REQUESTS (per endpoint, default 200).
 */
import type { Address } from "viem";
import { actionProtocols } from "../src/api/transaction-actions.ts";
import type { Database } from "../src/db/client.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { startAnvil } from "../src/demo/anvil.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "../test/support/databases.ts";
import { indexIntoNewDatabase } from "../test/support/indexed-chain.ts";

const requests = Number(process.env.BENCH_REQUESTS ?? 200);

type Case = { name: string; path: string; baseline: (db: Database) => Promise<unknown> };

async function timeEach(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10; i++) await run();
  const started = performance.now();
  for (let i = 0; i < requests; i++) await run();
  return (performance.now() - started) / requests;
}

const anvil = await startAnvil();
try {
  process.stderr.write("building and indexing the demo chain...\n");
  const scenario = await runScenario({ rpcUrl: anvil.rpcUrl });
  const { contracts, examples, accounts } = scenario;
  const sender = accounts[0].toLowerCase() as Address;
  const pool = contracts.uniswapV3Pool.toLowerCase();
  const cases: Case[] = [
    {
      name: "2 address transactions (decoded inputs, actions, token transfers)",
      path: `/api/v2/addresses/${sender}/transactions`,
      baseline: (db) =>
        db.query(
          `SELECT t.* FROM address_transactions a
           JOIN transactions t ON t.block_number = a.block_number AND t.index = a.transaction_index
           WHERE a.address = $1 ORDER BY a.block_number DESC, a.transaction_index DESC LIMIT 51`,
          [byteaParam(sender)],
        ),
    },
    {
      name: "3 address logs (decoded)",
      path: `/api/v2/addresses/${pool}/logs`,
      baseline: (db) =>
        db.query(
          "SELECT * FROM logs WHERE address = $1 ORDER BY block_number DESC, log_index DESC LIMIT 51",
          [byteaParam(pool)],
        ),
    },
    {
      name: "7 transaction summary (a Uniswap swap)",
      path: `/api/v2/transactions/${examples.uniswapSwap}/summary`,
      baseline: (db) =>
        db.query("SELECT * FROM transactions WHERE hash = $1", [byteaParam(examples.uniswapSwap)]),
    },
    {
      name: "13 address token transfers",
      path: `/api/v2/addresses/${sender}/token-transfers`,
      baseline: (db) =>
        db.query(
          `SELECT t.* FROM address_token_transfers a
           JOIN token_transfers t ON t.block_number = a.block_number AND t.log_index = a.log_index
           WHERE a.address = $1 ORDER BY a.block_number DESC, a.log_index DESC LIMIT 51`,
          [byteaParam(sender)],
        ),
    },
  ];

  console.log(`\n${requests} requests per endpoint after 10 warm-up ones, one at a time (fastify inject)\n`);
  console.log("| database | endpoint | raw SQL (baseline) | API request | ratio to raw SQL |");
  console.log("|---|---|---:|---:|---:|");
  for (const kind of databaseKinds) {
    const indexed = await indexIntoNewDatabase(kind, createRpcClient({ url: anvil.rpcUrl }), {
      head: BigInt(scenario.headBlockNumber),
      api: {
        protocols: actionProtocols({
          uniswapV3Factory: contracts.uniswapV3Factory,
          uniswapV3PositionManager: contracts.uniswapV3PositionManager,
          aaveV3Pool: contracts.aavePool,
        }),
      },
    });
    try {
      for (const { name, path, baseline } of cases) {
        const status = (await indexed.app.inject(path)).statusCode;
        if (status !== 200) throw new Error(`${path} answered ${status}`);
        const raw = await timeEach(() => baseline(indexed.test.db));
        const api = await timeEach(() => indexed.app.inject(path));
        console.log(
          `| ${kind} | ${name} | ${raw.toFixed(2)} ms | ${api.toFixed(2)} ms | ${(raw / api).toFixed(2)} |`,
        );
      }
    } finally {
      await indexed.close();
    }
  }
} finally {
  await anvil.stop();
}
