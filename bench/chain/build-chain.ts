import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Address, encodeFunctionData, type Hex } from "viem";
import { type Anvil, startAnvil } from "../../src/demo/anvil.ts";
import {
  type Artifacts,
  artifactOf,
  compileDemoContracts,
  readPackagedArtifacts,
} from "../../src/demo/compile.ts";
import { runScenario } from "../../src/demo/scenario.ts";
import {
  type ActivityKind,
  createActivityPlanner,
  derivedAddresses,
  type PlannedTransaction,
  planFunding,
} from "./activity.ts";

/** Bump when the chain's plan changes: the cache folder is keyed by it. */
export const benchChainVersion = 1;

/** What was built; kept in the cache folder to check that the next build sends the same transactions. */
export type BenchChainDescription = {
  version: number;
  seed: number;
  head: number;
  headHash: Hex;
  transactions: number;
  /** Transactions of the bulk activity by kind (the demo scenario and funding blocks come first). */
  mix: Partial<Record<ActivityKind, number>>;
  scenarioBlocks: number;
  buildSeconds: number;
  /** Bytes of the historical states anvil keeps on disk for this chain. */
  historyBytes: number;
  contracts: Record<string, Address>;
};

/** A running anvil serving the benchmark chain. */
export type BenchChain = BenchChainDescription & { rpcUrl: string; stop(): Promise<void> };

/** Parameters of {@link startBenchChain}. */
export type StartBenchChainParameters = {
  /** Blocks of bulk activity after the demo scenario; BENCH_CHAIN_BLOCKS or 4,100. */
  blocks?: number;
  /** Average transactions per bulk block (blocks hold 60–140 % of it). */
  transactionsPerBlock?: number;
  seed?: number;
  log?: (line: string) => void;
};

const cacheRoot = fileURLToPath(new URL("../../.cache/bench-chain/", import.meta.url));
const genesisTimestamp = 1_700_000_000;
const blockInterval = 12;
const senderCount = 100;
const defaultBlocks = Number(process.env.BENCH_CHAIN_BLOCKS ?? 4_100);
const recipients = 5_000;

/** The cache folder of one plan: builder version, seed and size. */
export function benchChainFolder(parameters: StartBenchChainParameters = {}): string {
  const { blocks = defaultBlocks, transactionsPerBlock = 50, seed = 13 } = parameters;
  return `${cacheRoot}v${benchChainVersion}-${seed}-${blocks}x${transactionsPerBlock}/`;
}

/**
 * Starts anvil on the benchmark chain. A chain served by `bench/chain/serve.ts` for the same plan is
 * reused; otherwise the chain is built (demo scenario, then seeded bulk activity mined in batches) and
 * served by this process until `stop`.
 *
 * Why the chain itself is not cached on disk: Sextant reads state at past blocks (code of call targets,
 * token metadata and supplies, proxy slots), so the node must keep every historical state. anvil's
 * `--load-state` restores only the head's state (reads at any older block answer BlockOutOfRangeError,
 * and Sextant's code lookup then retries forever), and `--preserve-historical-states` writes the full
 * state of every block into the dump (gigabytes here). The bulk activity is seeded and its order fixed
 * by nonces; the demo scenario sends some transactions concurrently, so block hashes may differ from
 * build to build, not the transactions. The cache keeps the description of the last build, and a
 * rebuild with other transactions is reported.
 */
export async function startBenchChain(parameters: StartBenchChainParameters = {}): Promise<BenchChain> {
  const { blocks = defaultBlocks, transactionsPerBlock = 50, seed = 13, log = () => {} } = parameters;
  const folder = benchChainFolder(parameters);
  const served = await readServedChain(folder);
  if (served) {
    log(`using the benchmark chain served at ${served.rpcUrl}\n`);
    return { ...served, stop: async () => {} };
  }
  const descriptionFile = `${folder}chain.json`;
  const previous = existsSync(descriptionFile)
    ? (JSON.parse(await readFile(descriptionFile, "utf8")) as BenchChainDescription)
    : undefined;
  const history = `${folder}history-${process.pid}`;
  await mkdir(folder, { recursive: true });
  await removeAbandonedHistories(folder);
  log(`building the benchmark chain (${blocks} blocks of about ${transactionsPerBlock} transactions) ...\n`);
  const started = performance.now();
  const anvil = await startAnvil({
    args: [
      "--timestamp",
      String(genesisTimestamp),
      // The two funding blocks carry a few hundred transactions each.
      "--gas-limit",
      "60000000",
      "--max-persisted-states",
      String(blocks * 2),
      "--cache-path",
      history,
    ],
  });
  const stop = async () => {
    await anvil.stop();
    await rm(history, { recursive: true, force: true });
  };
  try {
    const description = await build(anvil, { blocks, transactionsPerBlock, seed, log });
    description.buildSeconds = Math.round((performance.now() - started) / 1000);
    description.historyBytes = await folderBytes(history);
    if (
      previous &&
      JSON.stringify([previous.transactions, previous.mix]) !==
        JSON.stringify([description.transactions, description.mix])
    ) {
      log(`warning: this build differs from the previous one (${previous.transactions} transactions)\n`);
    }
    await writeFile(descriptionFile, JSON.stringify(description, null, 2));
    log(
      `built in ${description.buildSeconds} s: ${description.head + 1} blocks, ${description.transactions} transactions, ${(description.historyBytes / 1e9).toFixed(1)} GB of historical states\n`,
    );
    return { ...description, rpcUrl: anvil.rpcUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Removes the historical states left by builds whose process is gone: a run killed before its `stop` (an
 * interrupted benchmark, a crash) leaves its folder behind, about 25 GB each, and a few of them filled this
 * machine's disk. A folder whose process id is alive again under another program stays.
 */
async function removeAbandonedHistories(folder: string): Promise<void> {
  for (const entry of await readdir(folder)) {
    const pid = /^history-(\d+)$/.exec(entry)?.[1];
    if (pid !== undefined && !processExists(Number(pid)))
      await rm(join(folder, entry), { recursive: true, force: true });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Marks `chain` as served for other processes until the returned function is called. */
export async function announceBenchChain(chain: BenchChain, parameters: StartBenchChainParameters = {}) {
  const file = `${benchChainFolder(parameters)}served.json`;
  await writeFile(file, JSON.stringify({ ...chain, pid: process.pid }, null, 2));
  return () => rm(file, { force: true });
}

async function readServedChain(
  folder: string,
): Promise<(BenchChainDescription & { rpcUrl: string }) | undefined> {
  const file = `${folder}served.json`;
  if (!existsSync(file)) return undefined;
  const served = JSON.parse(await readFile(file, "utf8")) as BenchChainDescription & { rpcUrl: string };
  try {
    const block = (await rpc(served.rpcUrl, "eth_getBlockByNumber", [
      `0x${served.head.toString(16)}`,
      false,
    ])) as {
      hash: Hex;
    } | null;
    if (block?.hash === served.headHash) return served;
  } catch {
    // The serving process is gone.
  }
  return undefined;
}

async function folderBytes(path: string): Promise<number> {
  let total = 0;
  // anvil writes states to disk only once it keeps more than fit its memory budget.
  if (!existsSync(path)) return 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function build(
  anvil: Anvil,
  options: Required<Omit<StartBenchChainParameters, "log">> & { log: (line: string) => void },
): Promise<BenchChainDescription> {
  const { rpcUrl } = anvil;
  const { blocks, transactionsPerBlock, seed, log } = options;
  await rpc(rpcUrl, "anvil_setBlockTimestampInterval", [blockInterval]);
  const scenario = await runScenario({ rpcUrl });
  const scenarioBlocks = Number(scenario.headBlockNumber);
  log(`demo scenario: ${scenarioBlocks} blocks\n`);
  await rpc(rpcUrl, "evm_setAutomine", [false]);

  // The senders are impersonated: anvil signs nothing for them (their transactions carry r = s = 0).
  await rpc(rpcUrl, "anvil_autoImpersonateAccount", [true]);
  const [owner] = scenario.accounts;
  const senders = derivedAddresses("sender", senderCount);
  const counts = (await rpcBatch(
    rpcUrl,
    scenario.accounts.map((account) => ({ method: "eth_getTransactionCount", params: [account, "latest"] })),
  )) as Hex[];
  const artifacts: Artifacts = { ...(await compileDemoContracts()), ...readPackagedArtifacts() };
  const setup = {
    artifacts,
    contracts: scenario.contracts,
    owner,
    senders,
    nonces: new Map(scenario.accounts.map((account, i) => [account, Number(counts[i])])),
    nftOwners: new Map<bigint, Address>(),
    nextNftId: BigInt(
      (await rpc(rpcUrl, "eth_call", [
        {
          to: scenario.contracts.collectible,
          data: encodeFunctionData({
            abi: artifactOf(artifacts, "DemoCollectible").abi,
            functionName: "nextTokenId",
          }),
        },
        "latest",
      ])) as Hex,
    ),
  };
  const funding = planFunding(setup, scenario.accounts);
  await mineBlock(rpcUrl, funding.first);
  await mineBlock(rpcUrl, funding.second);

  const planner = createActivityPlanner(setup, seed, recipients);
  const mix: Partial<Record<ActivityKind, number>> = {};
  let transactions = scenario.transactionCount + funding.first.length + funding.second.length;
  const began = performance.now();
  for (let b = 0; b < blocks; b++) {
    const planned = planner.block(planner.size(transactionsPerBlock));
    await mineBlock(rpcUrl, planned);
    transactions += planned.length;
    for (const { kind } of planned) mix[kind] = (mix[kind] ?? 0) + 1;
    if ((b + 1) % 500 === 0) {
      const seconds = (performance.now() - began) / 1000;
      log(
        `  ${b + 1}/${blocks} blocks, ${transactions} transactions, ${Math.round(transactions / seconds)} tx/s\n`,
      );
    }
  }
  await rpc(rpcUrl, "evm_setAutomine", [true]);
  const last = (await rpc(rpcUrl, "eth_getBlockByNumber", ["latest", false])) as { number: Hex; hash: Hex };
  return {
    version: benchChainVersion,
    seed,
    head: Number(last.number),
    headHash: last.hash,
    transactions,
    mix,
    scenarioBlocks,
    buildSeconds: 0,
    historyBytes: 0,
    contracts: scenario.contracts,
  };
}

/** Sends the block's transactions in one batch, mines them and checks that all of them are in the block. */
async function mineBlock(rpcUrl: string, planned: PlannedTransaction[]): Promise<void> {
  await rpcBatch(
    rpcUrl,
    planned.map(({ request }) => ({ method: "eth_sendTransaction", params: [request] })),
  );
  await rpc(rpcUrl, "evm_mine", []);
  const count = Number(await rpc(rpcUrl, "eth_getBlockTransactionCountByNumber", ["latest"]));
  if (count !== planned.length) throw new Error(`mined ${count} of ${planned.length} transactions`);
}

let nextId = 1;

async function rpcBatch(url: string, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((call) => ({ jsonrpc: "2.0", id: nextId++, ...call }))),
  });
  const answers = (await response.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  answers.sort((a, b) => a.id - b.id);
  return answers.map((answer, i) => {
    if (answer.error) throw new Error(`${calls[i]?.method}: ${answer.error.message}`);
    return answer.result;
  });
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const [result] = await rpcBatch(url, [{ method, params }]);
  return result;
}
