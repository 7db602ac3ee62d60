import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hash,
  http,
  type PublicClient,
} from "viem";
import { compileDemoContracts, readPackagedArtifacts } from "./compile.ts";
import {
  isScenarioAccounts,
  type Scenario,
  type ScenarioAccounts,
  type ScenarioContracts,
  type ScenarioExamples,
} from "./scenario/context.ts";
import { deploy } from "./scenario/deploy.ts";
import { depthActivity, type ScenarioDepth } from "./scenario/depth.ts";
import { failures } from "./scenario/failures.ts";
import { hybridActivity } from "./scenario/hybrid.ts";
import { multiTokenActivity, multiTokenBatchOfTen } from "./scenario/multi-token.ts";
import { nftActivity } from "./scenario/nfts.ts";
import { playgroundActivity } from "./scenario/playground.ts";
import { type ProtocolAmounts, protocolActivity } from "./scenario/protocols.ts";
import { proxyActivity } from "./scenario/proxies.ts";
import { oddMetadataTokenActivity, tokenActivity } from "./scenario/tokens.ts";
import { valueTransfers } from "./scenario/value-transfers.ts";
import { type RunUserOperationsReturnType, runUserOperations } from "./user-operations.ts";

/** Parameters of {@link runScenario}. */
export type RunScenarioParameters = {
  /** JSON-RPC endpoint of an anvil node whose dev accounts are unlocked. */
  rpcUrl: string;
  /** Repetitions of the activity mix, about 14 blocks each; the default 28 mines about 390 blocks. */
  rounds?: number;
};

const contractKeys: (keyof ScenarioContracts)[] = [
  "token",
  "collectible",
  "multiToken",
  "proxy",
  "implementation",
  "playground",
  "relay",
  "create2Child",
  "hybrid",
  "bytes32Token",
  "revertingNameToken",
  "counterV2",
  "secondToken",
  "weth",
  "uniswapV3Factory",
  "uniswapV3Pool",
  "uniswapV3PositionManager",
  "uniswapCallee",
  "aavePool",
  "aaveFlashLoanReceiver",
  "cloneImplementation",
  "cloneFactory",
  "clone",
];

const exampleKeys: (keyof ScenarioExamples)[] = [
  "contractCreation",
  "valueTransfer",
  "legacyTransaction",
  "accessListTransaction",
  "tokenTransfer",
  "tokenMint",
  "tokenBurn",
  "tokenApproval",
  "tokenApprovalRevoked",
  "collectibleMint",
  "collectibleTransfer",
  "collectibleBurn",
  "multiTokenMintBatch",
  "multiTokenBatchTransfer",
  "multiTokenMintBatchOfTen",
  "multiTokenBatchOfTen",
  "multiTokenBurn",
  "multiTokenBurnBatch",
  "hybridTransfer",
  "hybridNftTransfer",
  "hybridNftApproval",
  "hybridApprovalForAll",
  "bytes32TokenTransfer",
  "revertingNameTokenTransfer",
  "proxyCall",
  "nestedCalls",
  "valueForwarding",
  "create",
  "create2",
  "selfdestruct",
  "caughtInnerRevert",
  "failedWithReason",
  "failedWithCustomError",
  "failedOutOfGas",
  "uniswapMint",
  "uniswapSwap",
  "uniswapSwapBack",
  "uniswapBurn",
  "uniswapCollect",
  "uniswapMintPosition",
  "aaveSupply",
  "aaveWithdraw",
  "aaveBorrow",
  "aaveRepay",
  "aaveFlashLoan",
  "aaveEnableCollateral",
  "aaveDisableCollateral",
  "aaveLiquidation",
  "proxyUpgrade",
  "proxyCallAfterUpgrade",
  "cloneCreation",
  "cloneCall",
  "wrap",
  "unwrap",
];

/** What {@link runScenario} produced. */
export type ScenarioResult = {
  chainId: number;
  /** Dev accounts that sent transactions; the first one deployed every contract. */
  accounts: ScenarioAccounts;
  contracts: ScenarioContracts;
  examples: ScenarioExamples;
  /** Transactions the scenario sent, including the failed ones. */
  transactionCount: number;
  /** Transactions mined with status 0, all of them intentional. */
  failedTransactionHashes: Hash[];
  /** What the protocol transactions (Uniswap, Aave, WETH, the upgraded proxy) sent and moved. */
  protocolAmounts: ProtocolAmounts;
  /** ERC-4337: the EntryPoints at their canonical addresses, the accounts, and every user operation sent. */
  userOperations: RunUserOperationsReturnType;
  /** The lists deeper than a page that {@link runScenario} made on purpose. */
  depth: ScenarioDepth;
  /** Head block before the scenario mined its first block. */
  startBlockNumber: bigint;
  headBlockNumber: bigint;
};

/**
 * Whether a saved scenario result has every contract, example and amount this version of the scenario
 * produces; one saved by an older version describes a chain without some of them.
 */
export function isCompleteScenarioResult(result: ScenarioResult): boolean {
  const present = (record: object | undefined, keys: string[]) =>
    record !== undefined && keys.every((key) => (record as Record<string, unknown>)[key] !== undefined);
  return (
    present(result.contracts, contractKeys) &&
    present(result.examples, exampleKeys) &&
    result.protocolAmounts !== undefined &&
    result.depth !== undefined &&
    result.userOperations !== undefined
  );
}

/** Return type of {@link runScenario}. */
export type RunScenarioReturnType = ScenarioResult;

const defaultRounds = 28;

/**
 * Deploys the demo contracts to an anvil node and mines a few hundred blocks of varied activity:
 * value transfers, ERC-20/721/1155 mints, transfers, approvals and burns (including ERC-1155 batches of
 * ten ids), an ERC-404-style hybrid token, tokens with a `bytes32` or reverting `name()`, calls through an
 * EIP-1967 proxy, nested calls, CREATE, CREATE2, SELFDESTRUCT, caught and uncaught reverts, legacy,
 * EIP-2930 and EIP-1559 transactions, and blocks holding one, several or no transactions. Then, once, in a
 * few more blocks: a Uniswap v3 factory, pool and position manager (mint, swaps, burn, collect, position NFT),
 * an Aave-v3-compatible pool (supply, withdraw, borrow, repay, flash loan, collateral switches, liquidation),
 * WETH wrap and unwrap, the proxy's upgrade to `CounterV2` and an EIP-1167 clone. Then, in two blocks, lists
 * deeper than a page (see {@link ScenarioDepth}).
 *
 * Transactions are sent from anvil's unlocked dev accounts (`eth_sendTransaction`); every receipt is
 * checked, so an unexpected failure throws instead of silently producing a different chain.
 *
 * @example
 * const anvil = await startAnvil();
 * const result = await runScenario({ rpcUrl: anvil.rpcUrl });
 * console.log(`${result.headBlockNumber} blocks, token at ${result.contracts.token}`);
 */
export async function runScenario(parameters: RunScenarioParameters): Promise<RunScenarioReturnType> {
  const { rpcUrl, rounds = defaultRounds } = parameters;
  const transport = http(rpcUrl);
  // No caching: the scenario reads the head right after mining.
  const publicClient = createPublicClient({ transport, cacheTime: 0 });
  const walletClient = createWalletClient({ transport });
  const testClient = createTestClient({ mode: "anvil", transport });

  const [compiled, chainId, accounts, startBlockNumber] = await Promise.all([
    compileDemoContracts(),
    publicClient.getChainId(),
    walletClient.getAddresses(),
    publicClient.getBlockNumber(),
  ]);
  if (!isScenarioAccounts(accounts))
    throw new Error(`the scenario needs 6 unlocked accounts, the node has ${accounts.length}`);
  // The node may have been left with automine off by an interrupted run.
  await testClient.setAutomine(true);

  const scenario: Scenario = {
    publicClient,
    walletClient,
    testClient,
    artifacts: { ...compiled, ...readPackagedArtifacts() },
    accounts,
    contracts: {},
    examples: {},
    transactionCount: 0,
    failedTransactionHashes: [],
    collectible: { nextTokenId: 1n, holders: new Map() },
    multiToken: {},
    playground: {},
  };

  await deploy(scenario);
  for (let round = 0; round < rounds; round++) {
    await valueTransfers(scenario, round);
    await tokenActivity(scenario, round);
    await nftActivity(scenario, round);
    await multiTokenActivity(scenario, round);
    await multiTokenBatchOfTen(scenario, round);
    await hybridActivity(scenario, round);
    await oddMetadataTokenActivity(scenario, round);
    await proxyActivity(scenario, round);
    await playgroundActivity(scenario, round);
    await failures(scenario, round);
    // Empty blocks happen on real chains too.
    if (round % 5 === 4) await testClient.mine({ blocks: 1 });
  }
  const protocolAmounts = await protocolActivity(scenario);
  const depth = await depthActivity(scenario);
  const beforeUserOperations = await publicClient.getBlockNumber();
  const userOperations = await runUserOperations({ rpcUrl });
  scenario.transactionCount += await transactionsMinedAfter(publicClient, beforeUserOperations);

  return {
    chainId,
    accounts,
    contracts: requireAll(scenario.contracts, contractKeys, "contract"),
    examples: requireAll(scenario.examples, exampleKeys, "example transaction"),
    transactionCount: scenario.transactionCount,
    failedTransactionHashes: scenario.failedTransactionHashes,
    protocolAmounts,
    userOperations,
    depth,
    startBlockNumber,
    headBlockNumber: await publicClient.getBlockNumber(),
  };
}

function requireAll<record extends object>(
  partial: Partial<record>,
  keys: (keyof record)[],
  kind: string,
): record {
  const missing = keys.filter((key) => partial[key] === undefined);
  if (missing.length > 0) throw new Error(`scenario produced no ${kind} for ${missing.join(", ")}`);
  return partial as record;
}

/** How many transactions the blocks after `blockNumber` hold, up to the head. */
async function transactionsMinedAfter(publicClient: PublicClient, blockNumber: bigint): Promise<number> {
  const head = await publicClient.getBlockNumber();
  const counts = await Promise.all(
    Array.from({ length: Number(head - blockNumber) }, (_, i) =>
      publicClient.getBlockTransactionCount({ blockNumber: blockNumber + 1n + BigInt(i) }),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
