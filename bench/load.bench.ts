/**
 * `npm run bench:load`: Sextant under load while it indexes. Builds the demo chain on anvil, starts
 * `sextant start` against it (PostgreSQL with DATABASE_URL, else embedded PGlite) in its own process, keeps
 * the node making blocks with transactions in them, and drives the API with autocannon from this process:
 * a mixed workload over every list endpoint and many addresses, tokens and transactions of the chain.
 * The baseline, on the same server in the same run, is `/api/health/liveness`: what the server answers
 * when a request does no work, so the ratio says how much of the server's capacity the pages leave.
 *
 * Options (environment): BENCH_SECONDS (default 60), BENCH_CONNECTIONS (default 64).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { toHex } from "viem";
import { startAnvil } from "../src/demo/anvil.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { eth_blockNumber } from "../src/rpc/eth_blockNumber.ts";
import { freePort } from "../test/support/free-port.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const cli = join(import.meta.dirname, "../bin/sextant.js");

type Result = { requests: number; p50: number; p99: number; errors: number; non2xx: number };

async function load(url: string, paths: string[]): Promise<Result> {
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          request.path = paths[next++ % paths.length] as string;
          return request;
        },
      },
    ],
  });
  return {
    requests: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

const anvil = await startAnvil({ blockTime: 1 });
const dataDir = mkdtempSync(join(tmpdir(), "sextant-load-"));
let sextant: ChildProcess | undefined;
try {
  process.stderr.write("building the demo chain...\n");
  const scenario = await runScenario({ rpcUrl: anvil.rpcUrl });
  const client = createRpcClient({ url: anvil.rpcUrl });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const database = process.env.DATABASE_URL;
  if (database) {
    // A database of this run's own on DATABASE_URL's server.
    const { default: postgres } = await import("postgres");
    const admin = postgres(database, { max: 1, onnotice: () => {} });
    await admin.unsafe("DROP DATABASE IF EXISTS sextant_bench_load WITH (FORCE)");
    await admin.unsafe("CREATE DATABASE sextant_bench_load");
    await admin.end();
  }
  const target = database
    ? ["--database", Object.assign(new URL(database), { pathname: "/sextant_bench_load" }).toString()]
    : ["--data-dir", dataDir];
  sextant = spawn(
    process.execPath,
    [cli, "start", "--rpc", anvil.rpcUrl, ...target, "--port", String(port)],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, LOG_LEVEL: "warn", SEXTANT_POLL_INTERVAL: "250" },
    },
  );
  const head = Number(await eth_blockNumber(client));
  process.stderr.write(`indexing ${head} blocks...\n`);
  for (;;) {
    const health = await fetch(`${base}/api/health`).then(
      (answer) => answer.json(),
      () => null,
    );
    if (Number(health?.metadata?.blocks?.latest_block?.db?.number) >= head) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  // The node keeps making blocks, each with a few transfers, for the indexer to follow during the load.
  const [from, to] = scenario.accounts;
  let sending = true;
  const sender = (async () => {
    while (sending) {
      await client.request("eth_sendTransaction", [{ from, to, value: toHex(1) }]).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const { token, collectible, multiToken, uniswapV3Pool } = scenario.contracts;
  const addresses = [
    ...scenario.accounts,
    token,
    collectible,
    multiToken,
    uniswapV3Pool,
    scenario.contracts.playground,
  ];
  const transactions = Object.values(scenario.examples).filter(
    (value) => typeof value === "string" && value.length === 66,
  );
  const paths = [
    ...addresses.flatMap((address) => [
      `/api/v2/addresses/${address}/transactions`,
      `/api/v2/addresses/${address}/transactions?filter=from&sort=value&order=desc`,
      `/api/v2/addresses/${address}/logs`,
      `/api/v2/addresses/${address}/tokens`,
      `/api/v2/addresses/${address}/token-transfers`,
      `/api/v2/addresses/${address}/internal-transactions`,
      `/api/v2/addresses/${address}/nft/collections`,
      `/api/v2/addresses/${address}/withdrawals`,
    ]),
    `/api/v2/tokens/${token}/holders`,
    `/api/v2/tokens/${multiToken}/holders`,
    `/api/v2/tokens/${multiToken}/instances/1/holders`,
    "/api/v2/token-transfers",
    "/api/v2/token-transfers?type=ERC-721",
    "/api/v2/blocks/1/withdrawals",
    "/api/v2/proxy/account-abstraction/status",
    ...transactions.map((hash) => `/api/v2/transactions/${hash}/summary`),
  ];

  process.stderr.write(
    `${seconds} s at ${connections} connections: the baseline, then the mixed workload...\n`,
  );
  const baseline = await load(base, ["/api/health/liveness"]);
  const mixed = await load(base, paths);
  sending = false;
  await sender;
  const followed = Number(await eth_blockNumber(client)) - head;

  console.log(
    `\n${seconds} s, ${connections} connections, ${paths.length} distinct URLs, ${database ? "PostgreSQL" : "PGlite"}`,
  );
  console.log(`the node made ${followed} blocks during the run, each indexed as it came\n`);
  console.log("| workload | requests/s | p50 | p99 | errors | non-2xx | ratio to baseline |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [name, result] of [
    ["liveness (baseline)", baseline],
    ["mixed endpoints", mixed],
  ] as const) {
    const ratio = (result.requests / baseline.requests).toFixed(2);
    console.log(
      `| ${name} | ${Math.round(result.requests)} | ${result.p50} ms | ${result.p99} ms | ${result.errors} | ${result.non2xx} | ${ratio} |`,
    );
  }
} finally {
  sextant?.kill("SIGTERM");
  if (sextant) await once(sextant, "exit");
  await anvil.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
