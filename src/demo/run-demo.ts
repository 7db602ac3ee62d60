import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createChainIndexer, openStore, serve } from "../app.ts";
import type { Config } from "../config.ts";
import { ChainMismatchError } from "../db/chain-identity.ts";
import type { Logger } from "../logger.ts";
import { createRpcClient } from "../rpc/client.ts";
import { eth_blockNumber } from "../rpc/eth_blockNumber.ts";
import { startAnvil } from "./anvil.ts";
import { compileDemoContracts } from "./compile.ts";
import { isCompleteScenarioResult, runScenario, type ScenarioResult } from "./scenario.ts";

export type RunDemoParameters = { config: Config; logger: Logger; signal: AbortSignal };

/**
 * `sextant demo`: starts anvil with its state kept in `<dataDir>/demo`, plays the demo scenario on a
 * new chain, indexes the chain, serves the API and follows new blocks until `signal` aborts. A second
 * run resumes the same chain; if the chain was lost, or was played by an older scenario that lacks some of
 * today's contracts, a new chain is played and the demo's own embedded database starts afresh.
 */
export async function runDemo({ config, logger, signal }: RunDemoParameters): Promise<void> {
  const demoDir = join(config.dataDir, "demo");
  mkdirSync(demoDir, { recursive: true });
  const scenarioFile = join(demoDir, "scenario.json");
  const stateFile = join(demoDir, "anvil-state.json");
  let scenario = existsSync(scenarioFile)
    ? (JSON.parse(readFileSync(scenarioFile, "utf8")) as ScenarioResult)
    : null;
  if (scenario && !isCompleteScenarioResult(scenario)) {
    logger.warn("the saved demo chain predates parts of the scenario; playing it on a new chain");
    rmSync(stateFile, { force: true });
    scenario = null;
  }
  const anvil = await startAnvil({ stateFile });
  try {
    const head = await eth_blockNumber(createRpcClient({ url: anvil.rpcUrl }));
    if (head === 0n || !scenario) {
      logger.info({ rpcUrl: anvil.rpcUrl }, "playing the demo scenario on a new anvil chain");
      scenario = await runScenario({ rpcUrl: anvil.rpcUrl });
      writeFileSync(
        scenarioFile,
        JSON.stringify(scenario, (_, value) => (typeof value === "bigint" ? value.toString() : value), 2),
      );
    }

    const { uniswapV3Factory, uniswapV3PositionManager, aavePool } = scenario.contracts;
    // The demo's protocols live at the scenario's addresses, not at the mainnet defaults.
    const demoConfig = {
      ...config,
      rpcUrl: anvil.rpcUrl,
      dataDir: demoDir,
      pollIntervalMs: 250,
      uniswapV3Factory,
      uniswapV3PositionManager,
      aaveV3Pool: aavePool,
    };
    await writeDemoAbis(join(demoDir, "abis"), scenario);
    let db = await openStore({ config: demoConfig, logger });
    let indexer = createChainIndexer({ config: demoConfig, db, logger });
    try {
      await indexer.prepare();
    } catch (error) {
      if (!(error instanceof ChainMismatchError) || config.databaseUrl) throw error;
      logger.warn("the demo chain was replaced; starting its embedded database afresh");
      await db.close();
      rmSync(join(demoDir, "pglite"), { recursive: true, force: true });
      db = await openStore({ config: demoConfig, logger });
      indexer = createChainIndexer({ config: demoConfig, db, logger });
      await indexer.prepare();
    }
    const started = Date.now();
    const indexed = await indexer.catchUp(undefined, signal);
    logger.info({ indexed: Number(indexed), ms: Date.now() - started }, "demo chain indexed");
    const app = await serve({ config: demoConfig, db, logger });
    process.stdout.write(exampleUrls(`http://${config.host}:${config.port}/api/v2`, scenario));
    try {
      await indexer.run(signal);
    } finally {
      await app.close();
      await db.close();
    }
  } finally {
    await anvil.stop();
  }
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
      JSON.stringify({ address, name, abi: artifacts[name].abi }),
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
