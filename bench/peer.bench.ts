/**
 * `npm run bench:peer`: Ponder (bench/peer/, installed there on first use) indexes the ERC-20 `Transfer`
 * events of the benchmark chain into balances, beside Sextant's full indexing of the same blocks, both
 * on the PostgreSQL server of DATABASE_URL (a fresh database per run). Ponder's time runs from its start
 * until its `/status` reports the chain's head indexed; Sextant's from `prepare` to the
 * head written. Both results are checked: Ponder's balance rows against the (token, holder) pairs of the
 * chain's ERC-20 transfers, Sextant's transactions against the chain's. BENCH_ROUNDS (default 3) runs of each, in turn; medians reported.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { required } from "../src/required.ts";
import { startBenchChain } from "./chain/build-chain.ts";
import { format, load, median } from "./figures.ts";
import { indexChain } from "./index-chain.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const server = process.env.DATABASE_URL;
if (!server) throw new Error("bench:peer compares on PostgreSQL: set DATABASE_URL");
const peerFolder = fileURLToPath(new URL("./peer/", import.meta.url));
const ponderBinary = `${peerFolder}node_modules/.bin/ponder`;
const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const log = (line: string) => process.stderr.write(line);
const readPackageVersion = () =>
  (JSON.parse(readFileSync(`${peerFolder}node_modules/ponder/package.json`, "utf8")) as { version: string })
    .version;

if (!existsSync(ponderBinary)) {
  log("installing Ponder into bench/peer/ (npm ci) ...\n");
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: peerFolder,
    stdio: "inherit",
  });
  if (install.status !== 0) throw new Error("npm ci in bench/peer failed");
}

type PonderStatus = { ready: boolean; block: { number: number } | null };
type Log = { address: string; topics: string[]; data: string };

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

/**
 * The chain's ERC-20 tokens: contracts whose every `Transfer` log has three topics (an ERC-721 or
 * ERC-404 `Transfer` has four), and the (token, holder) pairs their transfers touch.
 */
async function erc20Tokens(url: string, head: number) {
  const logs: Log[] = [];
  for (let from = 0; from <= head; from += 500) {
    const to = Math.min(from + 499, head);
    logs.push(
      ...(await rpc<Log[]>(url, "eth_getLogs", [
        { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [transferTopic] },
      ])),
    );
  }
  const shapes = new Map<string, Set<number>>();
  for (const entry of logs) {
    const shape = shapes.get(entry.address) ?? new Set();
    shape.add(entry.topics.length);
    shapes.set(entry.address, shape);
  }
  const tokens = [...shapes]
    .filter(([, shape]) => shape.size === 1 && shape.has(3))
    .map(([address]) => address);
  const pairs = new Set<string>();
  const zero = `0x${"0".repeat(64)}`;
  let transfers = 0;
  for (const entry of logs) {
    if (!tokens.includes(entry.address)) continue;
    transfers++;
    for (const topic of entry.topics.slice(1)) if (topic !== zero) pairs.add(`${entry.address}${topic}`);
  }
  return { tokens, transfers, holders: pairs.size };
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

/** Ponder from a cold start into a fresh database until `/ready`; returns the milliseconds and the balance rows. */
async function ponderOnce(parameters: { url: string; head: number; chainId: number; tokens: string[] }) {
  const name = `ponder_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(server as string, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const databaseUrl = new URL(server as string);
  databaseUrl.pathname = `/${name}`;
  const port = await freePort();
  // Ponder's build cache and generated files from an earlier run must not shorten this one.
  await rm(`${peerFolder}.ponder`, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  let output = "";
  try {
    const started = performance.now();
    child = spawn(
      ponderBinary,
      ["start", "--schema", "bench", "--port", String(port), "--log-level", "warn"],
      {
        cwd: peerFolder,
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl.toString(),
          BENCH_RPC_URL: parameters.url,
          BENCH_CHAIN_ID: String(parameters.chainId),
          BENCH_TOKENS: JSON.stringify(parameters.tokens),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const exited = new Promise<never>((_, reject) =>
      child?.once("exit", (code) =>
        reject(new Error(`ponder exited (${code}) before it was ready:\n${output}`)),
      ),
    );
    // `/ready` answers once the finalized part is indexed; Ponder treats the chain's last blocks as
    // unfinalized and indexes them block by block afterwards, so synced means its status reached the head.
    let serving: number | undefined;
    const ready = (async () => {
      for (;;) {
        const answer = await fetch(`http://127.0.0.1:${port}/status`).catch(() => undefined);
        if (answer && serving === undefined) serving = performance.now() - started;
        const status = answer?.ok ? ((await answer.json()) as Record<string, PonderStatus> | null) : null;
        const chainStatus = status && Object.values(status)[0];
        if (chainStatus?.ready && (chainStatus.block?.number ?? -1) >= parameters.head) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await Promise.race([ready, exited]);
    const ms = performance.now() - started;
    const reader = postgres(databaseUrl.toString(), { max: 1, onnotice: () => {} });
    const [balances] = await reader.unsafe("SELECT count(*)::int AS count FROM bench.balance");
    const { count } = required(balances, "the count of balance rows");
    return { ms, startupMs: serving ?? ms, rows: Number(count) };
  } finally {
    if (child && child.exitCode === null) {
      const gone = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child?.kill("SIGKILL"), 5_000);
      await gone;
      clearTimeout(timer);
    }
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const ponderVersion = readPackageVersion();
const chain = await startBenchChain({ log });
try {
  const { head, transactions } = chain;
  const blocks = head + 1;
  const chainId = Number(await rpc<string>(chain.rpcUrl, "eth_chainId", []));
  // Ponder indexes a block once the node has a block above it (its realtime sync stays one behind), so
  // one empty block goes above the chain's head; Sextant and Ponder both stop at the head.
  if (Number(await rpc<string>(chain.rpcUrl, "eth_blockNumber", [])) === head)
    await rpc(chain.rpcUrl, "evm_mine", []);
  const erc20 = await erc20Tokens(chain.rpcUrl, head);
  log(
    `${erc20.tokens.length} ERC-20 tokens, ${erc20.transfers} transfers, ${erc20.holders} (token, holder) pairs\n`,
  );
  const times = { sextant: [] as number[], ponder: [] as number[], ponderStartup: [] as number[] };
  const loads: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    const before = load();
    const sextant = await indexChain("postgres", chain.rpcUrl, head, transactions);
    times.sextant.push(sextant);
    const ponder = await ponderOnce({ url: chain.rpcUrl, head, chainId, tokens: erc20.tokens });
    if (ponder.rows !== erc20.holders) {
      throw new Error(
        `Ponder stored ${ponder.rows} balances, the transfers touch ${erc20.holders} (token, holder) pairs`,
      );
    }
    times.ponder.push(ponder.ms);
    times.ponderStartup.push(ponder.startupMs);
    loads.push(`${before}→${load()}`);
    log(
      `round ${round}: sextant ${format(sextant)} ms, ponder ${format(ponder.ms)} ms (load ${before}→${load()})\n`,
    );
  }
  const sextant = median(times.sextant);
  const ponder = median(times.ponder);
  console.log(
    `\n${format(blocks)} blocks, ${format(transactions)} transactions, ${format(erc20.transfers)} ERC-20 transfers of ${erc20.tokens.length} tokens; median of ${rounds}, PostgreSQL\n`,
  );
  console.log("| indexer | what it indexes | time | blocks/s | runs (ms) |\n|---|---|---:|---:|---|");
  console.log(
    `| sextant | everything: blocks, transactions, receipts, logs, traces, tokens, balances, … | ${format(sextant)} ms | ${format((blocks * 1000) / sextant)} | ${times.sextant.map(format).join(", ")} |`,
  );
  console.log(
    `| ponder ${ponderVersion} | ERC-20 Transfer events into balances | ${format(ponder)} ms | ${format((blocks * 1000) / ponder)} | ${times.ponder.map(format).join(", ")} |`,
  );
  console.log(
    `\nPonder's time / Sextant's time: ${(ponder / sextant).toFixed(2)} (above 1: Sextant is faster); load ${loads.join(", ")}`,
  );
  console.log(
    `Of Ponder's time, ${format(median(times.ponderStartup))} ms (median) pass before its HTTP server answers (build, migrations); runs: ${times.ponderStartup.map(format).join(", ")} ms`,
  );
} finally {
  await chain.stop();
}
