import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createChainIndexer, openStore, serve } from "../app.ts";
import type { Config } from "../config.ts";
import { readChainIdentity } from "../db/chain-identity.ts";
import { readCheckpoint } from "../db/checkpoints.ts";
import { type Database, lockDirectory } from "../db/client.ts";
import { readBlockHashes } from "../db/write-range.ts";
import { isUserError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { createMetrics } from "../metrics.ts";
import { progressOnTerminal } from "../progress.ts";
import { createRpcClient, type RpcClient } from "../rpc/client.ts";
import { eth_blockNumber } from "../rpc/eth_blockNumber.ts";
import { eth_chainId } from "../rpc/eth_chainId.ts";
import { eth_getBlockByNumber } from "../rpc/eth_getBlockByNumber.ts";
import { toHexQuantity } from "../rpc/types.ts";
import { type Anvil, startAnvil } from "./anvil.ts";
import { artifactOf, compileDemoContracts } from "./compile.ts";
import { isCompleteScenarioResult, runScenario, type ScenarioResult } from "./scenario.ts";

export type RunDemoParameters = { config: Config; logger: Logger; signal: AbortSignal };

/** Where the demo keeps its chain: anvil's state, what the scenario produced, and its own database. */
type DemoFiles = { stateFile: string; scenarioFile: string; pgliteDir: string };

/** A demo chain running in anvil, with the scenario played on it and the database that indexes it. */
type DemoChain = { anvil: Anvil; scenario: ScenarioResult; db: Database };

/**
 * `sextant demo`: starts anvil with its state kept in `<dataDir>/demo`, plays the demo scenario on a
 * new chain, indexes the chain, serves the API and follows new blocks until `signal` aborts.
 *
 * A later run resumes the same chain and database: anvil reloads its state file (with only the original
 * genesis block, see `repairAnvilState`) and the database continues from its checkpoint. A reloaded anvil
 * has no state for the blocks before its reload (`--preserve-historical-states` keeps it, in a file 15
 * times larger), so neither a lost database nor one behind the chain can be indexed again: when the saved
 * chain cannot be resumed as it is (files missing or unreadable, an older scenario, another chain than
 * the database's, a database ahead of the chain or needing old state), one line says why, and the chain,
 * the scenario and the demo's database are built afresh.
 */
export async function runDemo({ config, logger, signal }: RunDemoParameters): Promise<void> {
  const demoDir = join(config.dataDir, "demo");
  mkdirSync(demoDir, { recursive: true });
  // Taken before anything else: a second demo on the folder would load the first one's chain, find it
  // unusable (its database held) and build the demo afresh, deleting the files the first one runs on.
  const unlock = lockDirectory(demoDir, "demo.pid", (holder) => {
    return `the demo in ${demoDir} is running in process ${holder}: stop it, or set another --data-dir`;
  });
  try {
    await runDemoIn(demoDir, { config, logger, signal });
  } finally {
    unlock();
  }
}

async function runDemoIn(demoDir: string, { config, logger, signal }: RunDemoParameters): Promise<void> {
  const files: DemoFiles = {
    stateFile: join(demoDir, "anvil-state.json"),
    scenarioFile: join(demoDir, "scenario.json"),
    pgliteDir: join(demoDir, "pglite"),
  };
  const demoConfig = (anvil: Anvil, scenario: ScenarioResult) => ({
    ...config,
    rpcUrl: anvil.rpcUrl,
    dataDir: demoDir,
    pollIntervalMs: 250,
    // The demo's protocols live at the scenario's addresses, not at the mainnet defaults.
    uniswapV3Factory: scenario.contracts.uniswapV3Factory,
    uniswapV3PositionManager: scenario.contracts.uniswapV3PositionManager,
    aaveV3Pool: scenario.contracts.aavePool,
  });
  const open = (anvil: Anvil, scenario: ScenarioResult) =>
    openStore({ config: demoConfig(anvil, scenario), logger });

  let chain: DemoChain | undefined;
  try {
    const resumed = await resumeSavedChain({ files, open, firstBlock: config.firstBlock, signal });
    if (typeof resumed === "string") {
      if (resumed !== nothingSaved) {
        logger.warn(`the saved demo chain cannot be used (${resumed}); playing the scenario on a new chain`);
      }
      chain = await playNewChain({
        files,
        open,
        keepDatabase: config.databaseUrl !== undefined,
        logger,
        signal,
      });
    } else {
      chain = resumed;
      logger.info({ rpcUrl: chain.anvil.rpcUrl }, "resuming the saved demo chain");
    }
    const { anvil, scenario, db } = chain;
    const chainConfig = demoConfig(anvil, scenario);
    await writeDemoAbis(join(demoDir, "abis"), scenario);
    const metrics = createMetrics();
    const indexer = createChainIndexer({ config: chainConfig, db, logger, metrics, signal });
    await indexer.prepare(signal);
    const started = Date.now();
    const stopProgress = progressOnTerminal(indexer.status);
    const indexed = await indexer.catchUp(undefined, signal).finally(stopProgress);
    logger.info({ indexed: Number(indexed), ms: Date.now() - started }, "demo chain indexed");
    const app = await serve({ config: chainConfig, db, logger, metrics, indexer });
    process.stdout.write(exampleUrls(`${app.listeningOrigin}/api/v2`, scenario));
    try {
      await indexer.run(signal);
    } finally {
      await app.close();
    }
  } catch (error) {
    // Stopped while starting: whatever was under way failed because of the stop, not on its own.
    if (!signal.aborted) throw error;
  } finally {
    try {
      await chain?.db.close();
    } finally {
      await chain?.anvil.stop();
    }
  }
}

/** The reason {@link resumeSavedChain} gives on a first run, which needs no explanation. */
const nothingSaved = "nothing saved";

type OpenDemoStore = (anvil: Anvil, scenario: ScenarioResult) => Promise<Database>;

/**
 * Starts anvil on the saved chain and opens the demo's database when the pair can be resumed as it is;
 * otherwise stops what it started and says why.
 */
async function resumeSavedChain(parameters: {
  files: DemoFiles;
  open: OpenDemoStore;
  firstBlock: bigint;
  signal: AbortSignal;
}): Promise<DemoChain | string> {
  const { files, open, firstBlock, signal } = parameters;
  if (!existsSync(files.scenarioFile) && !existsSync(files.stateFile)) return nothingSaved;
  if (!existsSync(files.scenarioFile)) return "the scenario did not finish on it";
  if (!existsSync(files.stateFile)) return "anvil's state file is missing";
  let scenario: ScenarioResult;
  try {
    scenario = JSON.parse(readFileSync(files.scenarioFile, "utf8")) as ScenarioResult;
  } catch (error) {
    return `${files.scenarioFile} is unreadable: ${firstLine(error)}`;
  }
  if (!isCompleteScenarioResult(scenario)) return "it predates parts of today's scenario";

  let anvil: Anvil;
  try {
    anvil = await startAnvil({ stateFile: files.stateFile });
  } catch (error) {
    if (signal.aborted) throw error;
    return `anvil cannot load its state file: ${firstLine(error)}`;
  }
  let db: Database | undefined;
  try {
    // One attempt each: a problem here means rebuilding, not waiting.
    const client = createRpcClient({ url: anvil.rpcUrl, retries: 0 });
    let problem = await chainProblem(client, scenario);
    if (problem === null) {
      db = await open(anvil, scenario);
      problem = await databaseProblem(client, db, firstBlock);
      if (problem === null) return { anvil, scenario, db };
      await db.close();
    }
    await anvil.stop();
    return problem;
  } catch (error) {
    await db?.close().catch(() => {});
    await anvil.stop();
    // A database the operator must fix (held by another process, refused) is no reason to rebuild.
    if (signal.aborted || isUserError(error)) throw error;
    return firstLine(error);
  }
}

function firstLine(error: unknown): string {
  return (error as Error).message.replace(/\n.*$/s, "");
}

/** Why anvil's reloaded chain is not the chain the scenario was played on, or null when it is. */
async function chainProblem(client: RpcClient, scenario: ScenarioResult): Promise<string | null> {
  const [chainId, head] = await Promise.all([eth_chainId(client), eth_blockNumber(client)]);
  if (chainId !== scenario.chainId)
    return `anvil serves chain ${chainId}, the scenario ran on ${scenario.chainId}`;
  if (head < BigInt(scenario.headBlockNumber)) {
    return `anvil's chain ends at block ${head}, before the scenario's last block ${scenario.headBlockNumber}`;
  }
  const [genesis, first] = await eth_getBlockByNumber(client, {
    blocks: [0n, 1n],
    includeTransactions: false,
  });
  if (!genesis || first?.parentHash !== genesis.hash) return "block 1 does not follow anvil's block 0";
  return null;
}

/**
 * Why the database cannot continue on the node's chain, or null when it can: it must index this chain,
 * hold no block the chain lacks, and the node must still have the state the next block's reads need.
 */
async function databaseProblem(client: RpcClient, db: Database, firstBlock: bigint): Promise<string | null> {
  const [identity, checkpoint, chainId, head] = await Promise.all([
    readChainIdentity(db),
    readCheckpoint(db),
    eth_chainId(client),
    eth_blockNumber(client),
  ]);
  if (identity) {
    const [genesis] = await eth_getBlockByNumber(client, { blocks: [0n], includeTransactions: false });
    if (identity.chainId !== chainId || identity.genesisHash !== genesis?.hash?.toLowerCase())
      return "the database indexes another chain";
  }
  if (checkpoint !== null) {
    if (checkpoint > head) return `the database reaches block ${checkpoint}, the chain only ${head}`;
    const [[block], stored] = await Promise.all([
      eth_getBlockByNumber(client, { blocks: [checkpoint], includeTransactions: false }),
      readBlockHashes(db, checkpoint, checkpoint),
    ]);
    if (block?.hash !== stored.get(checkpoint))
      return `the database's block ${checkpoint} is not the chain's`;
  }
  const next = checkpoint === null ? firstBlock : checkpoint + 1n;
  if (next <= head) {
    try {
      await client.request("eth_getBalance", [zeroAddress, toHexQuantity(next)]);
    } catch {
      return `anvil no longer has the state to index block ${next} onwards`;
    }
  }
  return null;
}

const zeroAddress = "0x0000000000000000000000000000000000000000";

/**
 * Builds the demo afresh: a new anvil chain with the scenario played on it, saved at once so that even a
 * killed demo resumes it, and an empty demo database (an external one, from `--database`, is kept).
 */
async function playNewChain(parameters: {
  files: DemoFiles;
  open: OpenDemoStore;
  keepDatabase: boolean;
  logger: Logger;
  signal: AbortSignal;
}): Promise<DemoChain> {
  const { files, open, keepDatabase, logger, signal } = parameters;
  // The scenario file goes first: without it, whatever else is left is never mistaken for a saved chain.
  rmSync(files.scenarioFile, { force: true });
  rmSync(files.stateFile, { force: true });
  if (!keepDatabase) rmSync(files.pgliteDir, { recursive: true, force: true });
  const anvil = await startAnvil({ stateFile: files.stateFile });
  try {
    logger.info({ rpcUrl: anvil.rpcUrl }, "playing the demo scenario on a new anvil chain");
    const scenario = await untilAborted(runScenario({ rpcUrl: anvil.rpcUrl }), signal);
    await anvil.saveState();
    writeFileSync(
      files.scenarioFile,
      JSON.stringify(scenario, (_, value) => (typeof value === "bigint" ? value.toString() : value), 2),
    );
    return { anvil, scenario, db: await open(anvil, scenario) };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** `task`, or its abandonment with the signal's reason once `signal` aborts. */
function untilAborted<T>(task: Promise<T>, signal: AbortSignal): Promise<T> {
  // Abandoned, the task fails once anvil stops; that failure is expected and must not go unhandled.
  task.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    task.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Which compiled contract each of the scenario's own contracts is. */
const demoContractNames: [keyof ScenarioResult["contracts"], string][] = [
  ["token", "DemoToken"],
  ["secondToken", "DemoDollar"],
  ["collectible", "DemoCollectible"],
  ["multiToken", "DemoMultiToken"],
  ["hybrid", "DemoHybrid"],
  ["bytes32Token", "DemoBytes32Token"],
  ["revertingNameToken", "DemoRevertingNameToken"],
  ["proxy", "CounterProxy"],
  ["implementation", "CounterV1"],
  ["counterV2", "CounterV2"],
  ["playground", "Playground"],
  ["relay", "Relay"],
  ["uniswapCallee", "UniswapV3Callee"],
  ["aavePool", "DemoAavePool"],
  ["aaveFlashLoanReceiver", "DemoFlashLoanReceiver"],
  ["cloneImplementation", "DemoNote"],
  ["cloneFactory", "DemoNoteFactory"],
];

/**
 * Puts the ABIs of the demo's own contracts into the demo's ABI folder, the way an operator would, so
 * that the indexer imports them at start and the demo's calls, logs and errors decode with their names.
 */
async function writeDemoAbis(folder: string, scenario: ScenarioResult): Promise<void> {
  const artifacts = await compileDemoContracts();
  mkdirSync(folder, { recursive: true });
  for (const [key, name] of demoContractNames) {
    const address = scenario.contracts[key];
    writeFileSync(
      join(folder, `${address}.json`),
      JSON.stringify({ address, name, abi: artifactOf(artifacts, name).abi }),
    );
  }
}

function exampleUrls(base: string, scenario: ScenarioResult): string {
  const [account, holder] = scenario.accounts;
  const { token, playground, aavePool, uniswapV3Pool } = scenario.contracts;
  const { uniswapSwap, aaveLiquidation } = scenario.examples;
  return `
Sextant demo: chain ${scenario.chainId} indexed, API at ${base}
API reference, with "try it": ${base.replace(/\/api\/v2$/, "/docs")}

Try:
  ${base}/addresses/${account}/transactions
  ${base}/addresses/${account}/transactions?filter=from&sort=value&order=desc
  ${base}/addresses/${token}/logs
  ${base}/addresses/${holder}/tokens
  ${base}/addresses/${holder}/nft/collections
  ${base}/addresses/${holder}/token-transfers?type=ERC-1155
  ${base}/tokens/${token}/holders
  ${base}/token-transfers
  ${base}/addresses/${playground}/internal-transactions
  ${base}/addresses/${uniswapV3Pool}/logs
  ${base}/addresses/${aavePool}/logs
  ${base}/transactions/${uniswapSwap}/summary
  ${base}/transactions/${aaveLiquidation}/summary

Stop with Ctrl-C; the next "npm start" resumes this chain.
`;
}
