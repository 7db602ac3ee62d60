import {
  type Abi,
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  formatTransactionRequest,
  getAddress,
  type Hash,
  type Hex,
  http,
  keccak256,
  type Log,
  maxUint256,
  type PublicClient,
  padHex,
  parseEther,
  parseEventLogs,
  parseGwei,
  slice,
  type TestClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  type TransactionRequest,
  toHex,
  type WalletClient,
} from "viem";
import { type Artifacts, compileDemoContracts, readPackagedArtifacts } from "./compile.ts";
import { type RunUserOperationsReturnType, runUserOperations } from "./user-operations.ts";

/** Parameters of {@link runScenario}. */
export type RunScenarioParameters = {
  /** JSON-RPC endpoint of an anvil node whose dev accounts are unlocked. */
  rpcUrl: string;
  /** Repetitions of the activity mix, about 14 blocks each; the default 28 mines about 390 blocks. */
  rounds?: number;
};

/** Addresses of the contracts the scenario deployed or created. */
export type ScenarioContracts = {
  /** ERC-20 `DemoToken`. */
  token: Address;
  /** ERC-721 `DemoCollectible`; token ids start at 1 and carry `data:application/json` URIs. */
  collectible: Address;
  /** ERC-1155 `DemoMultiToken`. */
  multiToken: Address;
  /**
   * EIP-1967 proxy (`CounterProxy`, an OpenZeppelin `ERC1967Proxy`) in front of `implementation` during the
   * rounds, upgraded to `counterV2` at the end of the scenario.
   */
  proxy: Address;
  /** `CounterV1` (UUPS), the proxy's first implementation. */
  implementation: Address;
  playground: Address;
  /** `Relay`, created by the Playground's constructor (an inner CREATE). */
  relay: Address;
  /** First `Child` the Playground created with CREATE2. */
  create2Child: Address;
  /**
   * ERC-404-style `DemoHybrid`: each whole unit (1e18) held is also an NFT, so moving units emits both the
   * ERC-20 `Transfer` (3 topics) and the ERC-721 `Transfer` (4 topics, id indexed). NFT ids are
   * `2^255 + n`.
   */
  hybrid: Address;
  /** ERC-20 `DemoBytes32Token` whose `name()` and `symbol()` return `bytes32` (like MKR). */
  bytes32Token: Address;
  /** ERC-20 `DemoRevertingNameToken`: `name()` reverts, `symbol()` returns undecodable bytes. */
  revertingNameToken: Address;
  /** `CounterV2`, the proxy's implementation after `proxyUpgrade`. */
  counterV2: Address;
  /** ERC-20 `DemoDollar` ("SDD", 6 decimals), paired with `token` in the Uniswap and Aave pools. */
  secondToken: Address;
  /** WETH9 from its published bytecode. */
  weth: Address;
  /** `UniswapV3Factory` from `@uniswap/v3-core`'s published bytecode. */
  uniswapV3Factory: Address;
  /** The factory's 0.3% pool of `token` and `secondToken`. */
  uniswapV3Pool: Address;
  /** `NonfungiblePositionManager` from `@uniswap/v3-periphery`'s published bytecode. */
  uniswapV3PositionManager: Address;
  /** `UniswapV3Callee`: mints, swaps, burns and collects on the pool, paid from its caller's allowances. */
  uniswapCallee: Address;
  /** `DemoAavePool`: Aave v3 `IPool` functions and events over real ERC-20 movements. */
  aavePool: Address;
  /** `DemoFlashLoanReceiver`, the target of `aaveFlashLoan`. */
  aaveFlashLoanReceiver: Address;
  /** `DemoNote`, the implementation behind `clone`. */
  cloneImplementation: Address;
  /** `DemoNoteFactory`, which creates EIP-1167 minimal proxies of `cloneImplementation`. */
  cloneFactory: Address;
  /** The EIP-1167 clone `cloneCreation` created. */
  clone: Address;
};

/** One transaction hash per kind of activity, for example links and targeted tests. */
export type ScenarioExamples = {
  contractCreation: Hash;
  valueTransfer: Hash;
  legacyTransaction: Hash;
  accessListTransaction: Hash;
  tokenTransfer: Hash;
  /** ERC-20 mint by the owner: `Transfer` from the zero address. */
  tokenMint: Hash;
  /** ERC-20 `burn`: `Transfer` to the zero address. */
  tokenBurn: Hash;
  tokenApproval: Hash;
  /** ERC-20 `approve(spender, 0)` revoking an earlier allowance. */
  tokenApprovalRevoked: Hash;
  collectibleMint: Hash;
  collectibleTransfer: Hash;
  /** ERC-721 `burn`: `Transfer` to the zero address. */
  collectibleBurn: Hash;
  multiTokenMintBatch: Hash;
  multiTokenBatchTransfer: Hash;
  /** ERC-1155 `mintBatch` of ten distinct ids. */
  multiTokenMintBatchOfTen: Hash;
  /** ERC-1155 `safeBatchTransferFrom` of ten distinct ids. */
  multiTokenBatchOfTen: Hash;
  /** ERC-1155 `burn`: `TransferSingle` to the zero address. */
  multiTokenBurn: Hash;
  /** ERC-1155 `burnBatch`: `TransferBatch` to the zero address. */
  multiTokenBurnBatch: Hash;
  /** Hybrid `transfer` of exactly one unit: one ERC-20 and one ERC-721 `Transfer` between the same holders. */
  hybridTransfer: Hash;
  /** Hybrid `transferFrom` of an NFT id by an approved operator; one unit travels with it. */
  hybridNftTransfer: Hash;
  /** Hybrid ERC-721 `Approval` (4 topics) of a single id. */
  hybridNftApproval: Hash;
  hybridApprovalForAll: Hash;
  bytes32TokenTransfer: Hash;
  revertingNameTokenTransfer: Hash;
  proxyCall: Hash;
  nestedCalls: Hash;
  valueForwarding: Hash;
  create: Hash;
  create2: Hash;
  selfdestruct: Hash;
  caughtInnerRevert: Hash;
  failedWithReason: Hash;
  failedWithCustomError: Hash;
  failedOutOfGas: Hash;
  /** `UniswapV3Callee.mint`: the pool's `Mint`, paid in both tokens by the sender. */
  uniswapMint: Hash;
  /** Exact-input swap of token0 for token1 through the callee. */
  uniswapSwap: Hash;
  /** Exact-input swap of token1 back to token0. */
  uniswapSwapBack: Hash;
  /** Burn of half the callee's liquidity (tokens stay owed to the position). */
  uniswapBurn: Hash;
  /** Collect of everything owed to the callee's position, sent to the transaction's sender. */
  uniswapCollect: Hash;
  /** `NonfungiblePositionManager.mint`: a position NFT minted to the sender. */
  uniswapMintPosition: Hash;
  aaveSupply: Hash;
  aaveWithdraw: Hash;
  aaveBorrow: Hash;
  aaveRepay: Hash;
  /** `flashLoanSimple` to `aaveFlashLoanReceiver`, paid back with the premium. */
  aaveFlashLoan: Hash;
  aaveEnableCollateral: Hash;
  aaveDisableCollateral: Hash;
  aaveLiquidation: Hash;
  /** `upgradeToAndCall` on the proxy: `Upgraded(counterV2)`. */
  proxyUpgrade: Hash;
  /** `CounterV2.incrementBy` through the proxy. */
  proxyCallAfterUpgrade: Hash;
  /** `DemoNoteFactory.createNote`: an inner CREATE of the clone. */
  cloneCreation: Hash;
  /** `DemoNote.setNote` through the clone. */
  cloneCall: Hash;
  /** WETH9 `deposit`. */
  wrap: Hash;
  /** WETH9 `withdraw`. */
  unwrap: Hash;
};

/** Amounts in the smallest units of the token named alongside (or of ether). */
export type ProtocolAmounts = {
  uniswap: {
    /** The pool's tokens in pool order (`token0` < `token1`). */
    token0: Address;
    token1: Address;
    /** Fee tier in hundredths of a basis point (3000: 0.3%). */
    fee: number;
    /** `sqrtPriceX96` the pool was initialized with: one whole token for one whole token. */
    sqrtPriceX96: bigint;
    /** Range of every position minted. */
    tickLower: number;
    tickUpper: number;
    /** `uniswapMint`: the liquidity sent, and the token amounts the pool took for it. */
    mint: { liquidity: bigint; amount0: bigint; amount1: bigint };
    /** `uniswapSwap` (token0 in) and `uniswapSwapBack` (token1 in): the exact input sent and the output. */
    swap: { amountIn: bigint; amountOut: bigint };
    swapBack: { amountIn: bigint; amountOut: bigint };
    /** `uniswapBurn`: the liquidity sent, and the token amounts it freed. */
    burn: { liquidity: bigint; amount0: bigint; amount1: bigint };
    /** `uniswapCollect`: what the position paid out (the burnt amounts plus swap fees). */
    collect: { amount0: bigint; amount1: bigint };
    /** `uniswapMintPosition`: the amounts desired that were sent, and the NFT, liquidity and amounts taken. */
    position: {
      tokenId: bigint;
      amount0Desired: bigint;
      amount1Desired: bigint;
      liquidity: bigint;
      amount0: bigint;
      amount1: bigint;
    };
  };
  aave: {
    /** `aaveSupply` and `aaveWithdraw` of `token`, `aaveBorrow` and `aaveRepay` of `secondToken`. */
    supply: bigint;
    withdraw: bigint;
    borrow: bigint;
    repay: bigint;
    /** `aaveFlashLoan` of `token`, and the premium paid on top. */
    flashLoan: bigint;
    flashLoanPremium: bigint;
    /** `aaveLiquidation`: `secondToken` debt repaid by the liquidator, `token` collateral paid to it. */
    liquidationDebt: bigint;
    liquidationCollateral: bigint;
  };
  /** Wei wrapped by `wrap` and unwrapped by `unwrap`. */
  wrap: bigint;
  unwrap: bigint;
  /** Amount `proxyCallAfterUpgrade` added to the counter. */
  counterIncrement: bigint;
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
  accounts: Address[];
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

/** What the scenario's deep lists hold: more than a page each, with values a JSON double rounds. */
export type ScenarioDepth = {
  /** Addresses without keys that `token` was minted to: above 1e21, just above 2^60 and near 1e20, with ties. */
  tokenHolders: Address[];
  /** The `multiToken` id minted to more than a page of holders (`multiTokenIdHolders`). */
  multiTokenId: bigint;
  multiTokenIdHolders: Address[];
  /** The account holding more than a page of `multiToken` ids (`multiTokenIds`), with amounts above 1e21. */
  multiTokenIdsHolder: Address;
  multiTokenIds: bigint[];
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
// Only a stuck node reaches it; a loaded 2-core machine can take many seconds to mine a busy block.
const receiptTimeoutMs = 60_000;
// Failing transactions carry an explicit gas limit: without one anvil estimates gas, hits the revert and
// refuses to send the transaction at all.
const failingGas = 200_000n;

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
  if (accounts.length < 6)
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

/** Largest integer a JSON double holds exactly is 2^53; 2^60 is well past it (doubles there step by 256). */
const twoTo60 = 2n ** 60n;
/** Transactions per block of {@link depthActivity}. */
const depthBlockSize = 50;
/** The example of a value `String(JSON.parse(...))` prints as `4.994e+21`. */
const above1e21 = 4_993_999_999_999_999_999_904n;

/** `count` addresses no key controls (never senders), derived from `label`. */
function keylessAddresses(label: string, count: number): Address[] {
  return Array.from({ length: count }, (_, index) =>
    getAddress(slice(keccak256(toHex(`sextant demo ${label} ${index}`)), 12)),
  );
}

/**
 * A run of `count` values counting down by one from `top`, where every fifth value repeats the one before
 * (ties that only the address or id orders): all of them print as the same JSON double.
 */
function denseRun(top: bigint, count: number): bigint[] {
  const values: bigint[] = [];
  for (let index = 0; index < count; index++)
    values.push(index % 5 === 2 ? values[index - 1] : top - BigInt(index));
  return values;
}

/**
 * Lists deeper than a page, so paging is exercised on the demo chain (endpoints 1, 6 and 9): `token` minted
 * to 135 new holders (a dense run just below 4.994e21, one just above 2^60, and a few near 1e20), one
 * `multiToken` id minted to 65 holders (a dense run above 2^60, then ties at 3), and 60 `multiToken` ids
 * minted at once to one account with amounts just below 4.994e21, in pairs of equal amounts. The dense runs
 * are long enough that page boundaries fall inside them wherever the other holders rank, so a cursor
 * `value` sent back rounded lands between rows. The owner's mints, in blocks of {@link depthBlockSize}.
 */
async function depthActivity(scenario: Scenario): Promise<ScenarioDepth> {
  const { accounts } = scenario;
  const [owner] = accounts;
  const token = required(scenario.contracts.token);
  const multiToken = required(scenario.contracts.multiToken);
  const tokenAmounts = [
    ...denseRun(above1e21, 60),
    ...[1n, 2n, 3n, 3n, 5n].map((step) => step * 10n ** 20n + 7n),
    ...denseRun(twoTo60 + 120n, 70),
  ];
  const tokenHolders = keylessAddresses("token holder", tokenAmounts.length);
  const multiTokenId = 7000n;
  const idAmounts = [...denseRun(twoTo60 + 100n, 55), ...Array.from({ length: 10 }, () => 3n)];
  const multiTokenIdHolders = keylessAddresses("multi-token holder", idAmounts.length);
  const multiTokenIds = Array.from({ length: 60 }, (_, index) => 8000n + BigInt(index));
  const multiTokenIdsHolder = accounts[1];
  const plans: PlannedTransaction[] = [
    ...tokenHolders.map((holder, index) => ({
      from: owner,
      to: token,
      data: call(scenario, "DemoToken", "mint", [holder, tokenAmounts[index]]),
    })),
    {
      from: owner,
      to: multiToken,
      data: call(scenario, "DemoMultiToken", "mintBatch", [
        multiTokenIdsHolder,
        multiTokenIds,
        multiTokenIds.map((_, index) => above1e21 - BigInt(Math.floor(index / 2))),
        "0x",
      ]),
    },
    ...multiTokenIdHolders.map((holder, index) => ({
      from: owner,
      to: multiToken,
      data: call(scenario, "DemoMultiToken", "mint", [holder, multiTokenId, idAmounts[index], "0x"]),
    })),
  ];
  // Blocks of at most 50: tracing a block with debug_traceBlockByNumber costs the square of its size.
  for (let start = 0; start < plans.length; start += depthBlockSize)
    await mineTogether(scenario, plans.slice(start, start + depthBlockSize));
  return { tokenHolders, multiTokenId, multiTokenIdHolders, multiTokenIdsHolder, multiTokenIds };
}

type ContractName =
  | "DemoToken"
  | "DemoCollectible"
  | "DemoMultiToken"
  | "DemoHybrid"
  | "DemoBytes32Token"
  | "DemoRevertingNameToken"
  | "DemoDollar"
  | "CounterV1"
  | "CounterV2"
  | "CounterProxy"
  | "Playground"
  | "Child"
  | "UniswapV3Callee"
  | "DemoPositionDescriptor"
  | "DemoAavePool"
  | "DemoFlashLoanReceiver"
  | "DemoNote"
  | "DemoNoteFactory"
  | "UniswapV3Factory"
  | "UniswapV3Pool"
  | "NonfungiblePositionManager"
  | "WETH9";

type Scenario = {
  publicClient: PublicClient;
  walletClient: WalletClient;
  testClient: TestClient<"anvil">;
  artifacts: Artifacts;
  accounts: Address[];
  contracts: Partial<ScenarioContracts>;
  examples: Partial<ScenarioExamples>;
  transactionCount: number;
  failedTransactionHashes: Hash[];
  collectible: { nextTokenId: bigint; holders: Map<bigint, Address> };
  multiToken: { lastMint?: { holder: Address; ids: bigint[]; amounts: bigint[] } };
  playground: { lastCreateChild?: Address };
};

/** How the transaction pays for gas, which also decides its type (0, 1 or 2). */
type FeeStyle = "legacy" | "accessList" | "eip1559" | "nodeDefault";

type PlannedTransaction = {
  from: Address;
  /** Omitted for contract creations. */
  to?: Address;
  data?: Hex;
  value?: bigint;
  gas?: bigint;
  fees?: FeeStyle;
  expectFailure?: boolean;
  /** Records the hash as the example of this kind unless one exists already. */
  example?: keyof ScenarioExamples;
};

async function deploy(scenario: Scenario): Promise<void> {
  const [owner] = scenario.accounts;
  const { contracts } = scenario;
  const deployments: [keyof ScenarioContracts, ContractName, unknown[]][] = [
    ["token", "DemoToken", [owner]],
    ["collectible", "DemoCollectible", [owner]],
    ["multiToken", "DemoMultiToken", [owner, multiTokenUri()]],
    ["implementation", "CounterV1", []],
    ["playground", "Playground", []],
    ["hybrid", "DemoHybrid", [owner]],
    ["bytes32Token", "DemoBytes32Token", [owner]],
    ["revertingNameToken", "DemoRevertingNameToken", [owner]],
  ];
  for (const [key, contractName, args] of deployments) {
    const receipt = await mineAlone(scenario, {
      from: owner,
      data: deployData(scenario, contractName, args),
      fees: key === "token" ? "legacy" : "eip1559",
      example: "contractCreation",
    });
    contracts[key] = requireContractAddress(receipt);
  }

  const initialize = call(scenario, "CounterV1", "initialize", [owner, 0n]);
  const proxyDeployment = await mineAlone(scenario, {
    from: owner,
    data: deployData(scenario, "CounterProxy", [contracts.implementation, initialize]),
  });
  contracts.proxy = requireContractAddress(proxyDeployment);
  contracts.relay = (await scenario.publicClient.readContract({
    address: required(contracts.playground),
    abi: abiOf(scenario, "Playground"),
    functionName: "relay",
  })) as Address;

  // Seed every account with tokens in a single busy block.
  await mineTogether(
    scenario,
    scenario.accounts.flatMap((holder, index): PlannedTransaction[] => [
      {
        from: owner,
        to: contracts.token,
        data: call(scenario, "DemoToken", "mint", [holder, parseEther("10000")]),
        example: "tokenMint",
      },
      {
        from: owner,
        to: contracts.bytes32Token,
        data: call(scenario, "DemoBytes32Token", "mint", [holder, parseEther("5000")]),
      },
      {
        from: owner,
        to: contracts.revertingNameToken,
        data: call(scenario, "DemoRevertingNameToken", "mint", [holder, parseEther("5000")]),
      },
      {
        // 2.5, 6, 4.5, ... units: whole units become NFTs, the fractions do not.
        from: owner,
        to: contracts.hybrid,
        data: call(scenario, "DemoHybrid", "mint", [holder, hybridSeed[index % hybridSeed.length]]),
        gas: hybridGas,
      },
    ]),
  );
}

const hybridUnit = parseEther("1");
const hybridSeed = ["2.5", "6", "4.5", "3", "2.25", "1.5"].map((units) => parseEther(units));
// Explicit: gas estimated against the previous block misses NFTs that an earlier transaction in the same
// block makes a transfer mint.
const hybridGas = 1_500_000n;

async function valueTransfers(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const feeStyles: FeeStyle[] = ["legacy", "eip1559", "nodeDefault", "accessList"];
  await mineTogether(
    scenario,
    accounts.slice(0, 6).map((from, index) => ({
      from,
      to: pick(accounts, round + index + 1, from),
      value: parseEther("0.01") * BigInt(index + 1) + BigInt(round),
      fees: feeStyles[(round + index) % feeStyles.length],
      example: index % 2 === 0 ? "valueTransfer" : undefined,
    })),
  );
  await mineAlone(scenario, {
    from: pick(accounts, round + 6),
    to: pick(accounts, round + 7),
    value: parseEther("1.5"),
    fees: "legacy",
  });
}

async function tokenActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const token = required(scenario.contracts.token);
  const [spender, approver] = approvalPair(accounts, round);
  const transfers: PlannedTransaction[] = [1, 3, 4].map((offset) => {
    const from = pick(accounts, round + offset, spender, approver);
    return {
      from,
      to: token,
      data: call(scenario, "DemoToken", "transfer", [
        pick(accounts, round + offset + 1, from),
        parseEther("1") * BigInt(offset) + BigInt(round),
      ]),
      fees: offset === 3 ? "legacy" : "eip1559",
      example: "tokenTransfer",
    };
  });
  const plans: PlannedTransaction[] = [
    ...transfers,
    {
      from: approver,
      to: token,
      data: call(scenario, "DemoToken", "approve", [spender, parseEther("50")]),
      example: "tokenApproval",
    },
    {
      from: pick(accounts, round + 4),
      to: token,
      data: call(scenario, "DemoToken", "burn", [parseEther("0.5") + BigInt(round)]),
      example: "tokenBurn",
    },
  ];
  if (round % 2 === 1) {
    // Revoke what is left of the previous round's allowance; this round's pair differs, so order is free.
    const [previousSpender, previousApprover] = approvalPair(accounts, round - 1);
    plans.push({
      from: previousApprover,
      to: token,
      data: call(scenario, "DemoToken", "approve", [previousSpender, 0n]),
      example: "tokenApprovalRevoked",
    });
  }
  await mineTogether(scenario, plans);
  await mineAlone(scenario, {
    from: spender,
    to: token,
    data: call(scenario, "DemoToken", "transferFrom", [approver, spender, parseEther("5")]),
  });
  if (round % 7 === 0) {
    await mineAlone(scenario, {
      from: accounts[0],
      to: token,
      data: call(scenario, "DemoToken", "mint", [pick(accounts, round + 3), parseEther("250")]),
      example: "tokenMint",
    });
  }
}

/** Spender and approver of the round's ERC-20 allowance; consecutive rounds have different spenders. */
function approvalPair(accounts: Address[], round: number): [spender: Address, approver: Address] {
  const spender = pick(accounts, round + 2);
  return [spender, pick(accounts, round + 5, spender)];
}

async function nftActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, collectible } = scenario;
  const address = required(scenario.contracts.collectible);
  const plans: PlannedTransaction[] = [];

  const mintCount = round % 3 === 0 ? 2 : 1;
  for (let index = 0; index < mintCount; index++) {
    const tokenId = collectible.nextTokenId++;
    const holder = pick(accounts, round + index + 1, accounts[0]);
    collectible.holders.set(tokenId, holder);
    plans.push({
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoCollectible", "mint", [holder, collectibleTokenUri(tokenId)]),
      // Gas estimation runs against the last block, where the previous mint in this block did not happen yet.
      gas: 2_000_000n,
      example: "collectibleMint",
    });
  }

  // Move a token minted in an earlier round, so the transfer does not depend on this block.
  const tokenId = BigInt(round);
  const holder = collectible.holders.get(tokenId);
  if (holder !== undefined) {
    const recipient = pick(accounts, round + 4, holder, accounts[0]);
    collectible.holders.set(tokenId, recipient);
    const functionName = round % 2 === 0 ? "safeTransferFrom" : "transferFrom";
    plans.push({
      from: holder,
      to: address,
      data: call(scenario, "DemoCollectible", functionName, [holder, recipient, tokenId]),
      example: "collectibleTransfer",
    });
  }

  // Burn the token the previous round moved; it is never moved again. Token 1 keeps its metadata for tests.
  const burnedId = BigInt(round - 1);
  const burner = collectible.holders.get(burnedId);
  if (round % 3 === 0 && burnedId > 1n && burner !== undefined) {
    collectible.holders.delete(burnedId);
    plans.push({
      from: burner,
      to: address,
      data: call(scenario, "DemoCollectible", "burn", [burnedId]),
      example: "collectibleBurn",
    });
  }
  await mineTogether(scenario, plans);
}

async function multiTokenActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, multiToken } = scenario;
  const address = required(scenario.contracts.multiToken);
  const holder = pick(accounts, round + 2, accounts[0]);
  const ids = [0, 1, 2].map((offset) => BigInt(((round + offset) % 5) + 1));
  const amounts = [10n, 25n, 100n].map((amount) => amount + BigInt(round));
  const plans: PlannedTransaction[] = [
    {
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoMultiToken", "mintBatch", [holder, ids, amounts, "0x"]),
      example: "multiTokenMintBatch",
    },
  ];

  const previous = multiToken.lastMint;
  if (previous !== undefined) {
    const recipient = pick(accounts, round + 5, previous.holder);
    plans.push({
      from: previous.holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "safeBatchTransferFrom", [
        previous.holder,
        recipient,
        previous.ids,
        previous.amounts.map((amount) => amount / 2n),
        "0x",
      ]),
      example: "multiTokenBatchTransfer",
    });
  }
  if (round % 3 === 0) {
    plans.push({
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoMultiToken", "mint", [
        pick(accounts, round + 7),
        100n + BigInt(round),
        1n,
        "0x",
      ]),
    });
  }
  multiToken.lastMint = { holder, ids, amounts };
  await mineTogether(scenario, plans);
}

/** Ids 1001 to 1010, kept apart from {@link multiTokenActivity}'s ids so burns never starve its transfers. */
const batchOfTenIds = Array.from({ length: 10 }, (_, index) => 1001n + BigInt(index));

/** Every fourth round: a mint of ten ids, then a transfer of the same ten ids plus burns, in two blocks. */
async function multiTokenBatchOfTen(scenario: Scenario, round: number): Promise<void> {
  if (round % 4 !== 1) return;
  const { accounts } = scenario;
  const address = required(scenario.contracts.multiToken);
  const holder = pick(accounts, round + 1, accounts[0]);
  const recipient = pick(accounts, round + 3, holder);
  const amounts = batchOfTenIds.map((_, index) => 20n + BigInt(index + round));
  await mineAlone(scenario, {
    from: accounts[0],
    to: address,
    data: call(scenario, "DemoMultiToken", "mintBatch", [holder, batchOfTenIds, amounts, "0x"]),
    example: "multiTokenMintBatchOfTen",
  });
  // The holder spends at most half of each amount plus 3, so the order within the block does not matter.
  await mineTogether(scenario, [
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "safeBatchTransferFrom", [
        holder,
        recipient,
        batchOfTenIds,
        amounts.map((amount) => amount / 2n),
        "0x",
      ]),
      example: "multiTokenBatchOfTen",
    },
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "burn", [holder, batchOfTenIds[0], 3n]),
      example: "multiTokenBurn",
    },
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "burnBatch", [holder, batchOfTenIds.slice(1, 4), [1n, 2n, 3n]]),
      example: "multiTokenBurnBatch",
    },
  ]);
}

/**
 * One block of hybrid transfers: the richest holder sends exactly one unit (one NFT moves along), the
 * next one sends a fraction (NFTs are burnt or minted where whole units are crossed). Every fourth round
 * adds ERC-721 approvals and a second block where the approved operator moves the approved id.
 */
async function hybridActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, publicClient } = scenario;
  const address = required(scenario.contracts.hybrid);
  const abi = abiOf(scenario, "DemoHybrid");
  const read = async <value>(functionName: string, holder: Address) =>
    (await publicClient.readContract({ address, abi, functionName, args: [holder] })) as value;
  const holders = await Promise.all(
    accounts.map(async (account) => ({ account, balance: await read<bigint>("balanceOf", account) })),
  );
  // Stable sort: ties keep account order, so the scenario stays deterministic.
  const [first, second, ...others] = holders.sort((a, b) =>
    a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1,
  );
  if (first.balance < hybridUnit) throw new Error("no hybrid holder has a whole unit left");
  const hybrid = (
    from: Address,
    functionName: string,
    args: unknown[],
    example?: keyof ScenarioExamples,
  ) => ({
    from,
    to: address,
    data: call(scenario, "DemoHybrid", functionName, args),
    gas: hybridGas,
    example,
  });

  const plans: PlannedTransaction[] = [
    hybrid(
      first.account,
      "transfer",
      [pick(accounts, round + 1, first.account), hybridUnit],
      "hybridTransfer",
    ),
  ];
  const fraction = parseEther("0.35") + BigInt(round) * 10n ** 15n;
  if (second.balance >= fraction) {
    plans.push(hybrid(second.account, "transfer", [pick(accounts, round + 3, second.account), fraction]));
  }
  // Neither sender above touches this holder's NFTs, so the approved id stays where it is.
  const approver = round % 4 === 2 ? others.find((holder) => holder.balance >= hybridUnit) : undefined;
  if (approver === undefined) {
    await mineTogether(scenario, plans);
    return;
  }
  const operator = pick(accounts, round + 4, approver.account);
  const allOperator = pick(accounts, round + 5, approver.account, operator);
  const [id] = await read<readonly bigint[]>("owned", approver.account);
  await mineTogether(scenario, [
    ...plans,
    hybrid(approver.account, "approve", [operator, id], "hybridNftApproval"),
    hybrid(approver.account, "setApprovalForAll", [allOperator, true], "hybridApprovalForAll"),
    hybrid(approver.account, "approve", [allOperator, parseEther("0.5")]),
  ]);
  await mineTogether(scenario, [
    hybrid(operator, "transferFrom", [approver.account, operator, id], "hybridNftTransfer"),
    hybrid(approver.account, "setApprovalForAll", [allOperator, false]),
  ]);
}

/** Every other round: transfers and an approval of the tokens with a `bytes32` and a reverting `name()`. */
async function oddMetadataTokenActivity(scenario: Scenario, round: number): Promise<void> {
  if (round % 2 !== 0) return;
  const { accounts } = scenario;
  const bytes32Token = required(scenario.contracts.bytes32Token);
  const revertingNameToken = required(scenario.contracts.revertingNameToken);
  const sender = (offset: number) => pick(accounts, round + offset);
  const amount = parseEther("1") + BigInt(round);
  await mineTogether(scenario, [
    {
      from: sender(1),
      to: bytes32Token,
      data: call(scenario, "DemoBytes32Token", "transfer", [sender(2), amount]),
      example: "bytes32TokenTransfer",
    },
    {
      from: sender(2),
      to: bytes32Token,
      data: call(scenario, "DemoBytes32Token", "approve", [sender(3), parseEther("10")]),
    },
    {
      from: sender(3),
      to: revertingNameToken,
      data: call(scenario, "DemoRevertingNameToken", "transfer", [sender(4), amount * 2n]),
      example: "revertingNameTokenTransfer",
    },
  ]);
}

async function proxyActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const proxy = required(scenario.contracts.proxy);
  const increment: PlannedTransaction = {
    from: pick(accounts, round),
    to: proxy,
    data: call(scenario, "CounterV1", "increment", []),
    example: "proxyCall",
  };
  if (round % 2 === 0) {
    await mineAlone(scenario, increment);
    return;
  }
  await mineTogether(scenario, [
    increment,
    {
      from: pick(accounts, round + 1, increment.from),
      to: proxy,
      data: call(scenario, "CounterV1", "setValue", [BigInt(round) * 10n]),
      fees: "legacy",
    },
  ]);
}

async function playgroundActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const playground = required(scenario.contracts.playground);
  const sender = (offset: number) => pick(accounts, round + offset);

  const plans: PlannedTransaction[] = [
    {
      from: sender(0),
      to: playground,
      data: call(scenario, "Playground", "nestedCalls", [BigInt(2 + (round % 3))]),
      example: "nestedCalls",
    },
    {
      from: sender(1),
      to: playground,
      data: call(scenario, "Playground", "split", [[sender(2), sender(3), playground]]),
      value: parseEther("0.3"),
      example: "valueForwarding",
    },
    {
      from: sender(2),
      to: playground,
      data: call(scenario, "Playground", "createChild2", [create2Salt(round)]),
      value: parseEther("0.02"),
      example: "create2",
    },
    {
      from: sender(3),
      to: playground,
      data: call(scenario, "Playground", "catchInnerFailure", []),
      example: "caughtInnerRevert",
    },
  ];
  const previousChild = scenario.playground.lastCreateChild;
  if (previousChild !== undefined) {
    plans.push({
      from: sender(4),
      to: playground,
      data: call(scenario, "Playground", "destroyChild", [previousChild]),
    });
  }
  const receipts = await mineTogether(scenario, plans);
  scenario.contracts.create2Child ??= createdChildren(scenario, receipts[2])[0];

  const createReceipt = await mineAlone(scenario, {
    from: sender(5),
    to: playground,
    data: call(scenario, "Playground", "createChild", []),
    value: parseEther("0.01"),
    fees: "legacy",
    example: "create",
  });
  scenario.playground.lastCreateChild = createdChildren(scenario, createReceipt)[0];

  await mineAlone(scenario, {
    from: sender(6),
    to: playground,
    data: call(scenario, "Playground", "createAndDestroy", []),
    value: parseEther("0.005"),
    example: "selfdestruct",
  });
}

async function failures(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const playground = required(scenario.contracts.playground);
  const token = required(scenario.contracts.token);
  const sender = (offset: number) => pick(accounts, round + offset);
  if (round % 2 === 0) {
    // A block mixing failed and successful transactions.
    await mineTogether(scenario, [
      {
        from: sender(1),
        to: playground,
        data: call(scenario, "Playground", "failWithReason", []),
        gas: failingGas,
        expectFailure: true,
        example: "failedWithReason",
      },
      {
        from: sender(2),
        to: playground,
        data: call(scenario, "Playground", "failWithCustomError", [BigInt(round)]),
        gas: failingGas,
        fees: "legacy",
        expectFailure: true,
        example: "failedWithCustomError",
      },
      {
        from: sender(3),
        to: token,
        data: call(scenario, "DemoToken", "transfer", [sender(4), parseEther("1000000000")]),
        gas: failingGas,
        expectFailure: true,
      },
      { from: sender(4), to: sender(5), value: parseEther("0.001") },
    ]);
    return;
  }
  const kind = (round >> 1) % 3;
  if (kind === 0) {
    // 25k gas covers the intrinsic cost but not the delegatecall and storage write behind the proxy.
    await mineAlone(scenario, {
      from: sender(1),
      to: required(scenario.contracts.proxy),
      data: call(scenario, "CounterV1", "increment", []),
      gas: 25_000n,
      expectFailure: true,
      example: "failedOutOfGas",
    });
  } else if (kind === 1) {
    await mineAlone(scenario, {
      from: pick(accounts, round + 1, accounts[0]),
      to: required(scenario.contracts.collectible),
      data: call(scenario, "DemoCollectible", "mint", [sender(2), collectibleTokenUri(0n)]),
      gas: failingGas,
      expectFailure: true,
    });
  } else {
    // DemoToken has neither receive nor fallback, so plain ether is refused.
    await mineAlone(scenario, {
      from: sender(1),
      to: token,
      value: parseEther("0.1"),
      gas: failingGas,
      expectFailure: true,
    });
  }
}

// Transactions that depend on an earlier one of the same block carry this gas limit: estimating against the
// previous block would fail. It is above any of them (a first position NFT mint takes about 500k).
const dependentGas = 1_000_000n;
const poolFee = 3000;
const tickSpacing = 60;
// Positions span this many ticks either side of the initial price, about a factor of 1.8 each way.
const positionHalfWidth = 6000;
const secondTokenUnit = 10n ** 6n;
// DemoAavePool's flash-loan premium and liquidation bonus, in basis points.
const flashLoanPremiumBps = 5n;
const liquidationBonusBps = 500n;

/**
 * Once, after the rounds, in six blocks: deploys WETH9, the Uniswap v3 factory and position manager from
 * their published bytecode, the 6-decimal `DemoDollar`, the Uniswap callee, the Aave-compatible pool,
 * `CounterV2` and the clone factory; creates and initializes the pool of `token` and `secondToken`; then
 * sends the protocol transactions of {@link ScenarioExamples}, each sender's in order within a block.
 */
async function protocolActivity(scenario: Scenario): Promise<ProtocolAmounts> {
  const { accounts, contracts } = scenario;
  const [owner, trader, liquidityProvider, borrower, lender, liquidator] = accounts;
  const token = required(contracts.token);
  const proxy = required(contracts.proxy);
  const plan = (
    from: Address,
    to: Address,
    contractName: ContractName,
    functionName: string,
    args: unknown[],
    extra: Partial<PlannedTransaction> = {},
  ): PlannedTransaction => ({ from, to, data: call(scenario, contractName, functionName, args), ...extra });
  const dependent = (example: keyof ScenarioExamples, planned: PlannedTransaction): PlannedTransaction => ({
    ...planned,
    gas: dependentGas,
    example,
  });
  const approve = (from: Address, tokenAddress: Address, spender: Address) =>
    plan(from, tokenAddress, "DemoToken", "approve", [spender, maxUint256]);

  const deployments: [ContractName, unknown[]][] = [
    ["UniswapV3Factory", []],
    ["WETH9", []],
    ["DemoDollar", [owner]],
    ["DemoPositionDescriptor", []],
    ["CounterV2", []],
    ["DemoAavePool", []],
    ["DemoNote", []],
  ];
  const [factory, weth, secondToken, descriptor, counterV2, aavePool, cloneImplementation] = (
    await mineTogether(
      scenario,
      deployments.map(([contractName, args]) => ({
        from: owner,
        data: deployData(scenario, contractName, args),
      })),
    )
  ).map(requireContractAddress);
  Object.assign(contracts, {
    uniswapV3Factory: factory,
    weth,
    secondToken,
    counterV2,
    aavePool,
    cloneImplementation,
  } satisfies Partial<ScenarioContracts>);

  const [positionManager, callee, cloneFactory, flashLoanReceiver] = (
    await mineTogether(scenario, [
      { from: owner, data: deployData(scenario, "NonfungiblePositionManager", [factory, weth, descriptor]) },
      { from: owner, data: deployData(scenario, "UniswapV3Callee", [factory, trader]) },
      { from: owner, data: deployData(scenario, "DemoNoteFactory", [cloneImplementation]) },
      { from: owner, data: deployData(scenario, "DemoFlashLoanReceiver", [aavePool]) },
      plan(owner, factory, "UniswapV3Factory", "createPool", [token, secondToken, poolFee]),
    ])
  )
    .slice(0, 4)
    .map(requireContractAddress);
  const pool = getAddress(
    await readView<Address>(scenario, factory, "UniswapV3Factory", "getPool", [token, secondToken, poolFee]),
  );
  Object.assign(contracts, {
    uniswapV3PositionManager: positionManager,
    uniswapCallee: callee,
    cloneFactory,
    aaveFlashLoanReceiver: flashLoanReceiver,
    uniswapV3Pool: pool,
  } satisfies Partial<ScenarioContracts>);

  // Pools order their tokens by address. One whole token for one whole token is a raw price of
  // 10^(decimals1 - decimals0), and the pool takes its square root in Q64.96.
  const tokenIsToken0 = BigInt(token) < BigInt(secondToken);
  const [token0, token1] = tokenIsToken0 ? [token, secondToken] : [secondToken, token];
  const [unit0, unit1] = tokenIsToken0
    ? [parseEther("1"), secondTokenUnit]
    : [secondTokenUnit, parseEther("1")];
  const sqrtPriceX96 = tokenIsToken0 ? 2n ** 96n / 10n ** 6n : 2n ** 96n * 10n ** 6n;
  const wrap = parseEther("1");

  // Nothing in this block depends on another of its transactions.
  const setup = await mineTogether(scenario, [
    plan(owner, pool, "UniswapV3Pool", "initialize", [sqrtPriceX96]),
    ...[trader, liquidityProvider, borrower, lender, liquidator].map((holder) =>
      plan(owner, secondToken, "DemoDollar", "mint", [holder, 100_000n * secondTokenUnit]),
    ),
    // The receiver pays the flash loan's premium from this.
    plan(owner, token, "DemoToken", "mint", [flashLoanReceiver, parseEther("1")]),
    plan(owner, proxy, "CounterV1", "upgradeToAndCall", [counterV2, "0x"], { example: "proxyUpgrade" }),
    approve(trader, token, callee),
    approve(trader, secondToken, callee),
    plan(trader, cloneFactory, "DemoNoteFactory", "createNote", ["Sextant demo note"], {
      example: "cloneCreation",
    }),
    approve(liquidityProvider, token, positionManager),
    approve(liquidityProvider, secondToken, positionManager),
    plan(liquidityProvider, weth, "WETH9", "deposit", [], { value: wrap, example: "wrap" }),
    approve(borrower, token, aavePool),
    approve(borrower, secondToken, aavePool),
    approve(lender, secondToken, aavePool),
    approve(liquidator, secondToken, aavePool),
  ]);
  const clone = getAddress(
    eventArgs<{ note: Address }>(
      scenario,
      "DemoNoteFactory",
      setup.flatMap((receipt) => receipt.logs),
      "NoteCreated",
    ).note,
  );
  contracts.clone = clone;

  const { tick } = await readSlot0(scenario, pool);
  const tickLower = Math.floor((tick - positionHalfWidth) / tickSpacing) * tickSpacing;
  const tickUpper = Math.ceil((tick + positionHalfWidth) / tickSpacing) * tickSpacing;
  // About 780 whole tokens of each side over this range.
  const liquidity = 3n * 10n ** 15n;
  const swapIn = 10n * unit0;
  const swapBackIn = 5n * unit1;
  const aave = {
    supply: parseEther("500"),
    withdraw: parseEther("100"),
    borrow: 200n * secondTokenUnit,
    repay: 50n * secondTokenUnit,
    flashLoan: parseEther("100"),
    liquidationDebt: 60n * secondTokenUnit,
  };
  const counterIncrement = 5n;

  // Each sender's transactions run in order; no two senders touch the same state.
  const [mint, swap, swapBack, burn, collect] = await mineTogether(scenario, [
    dependent(
      "uniswapMint",
      plan(trader, callee, "UniswapV3Callee", "mint", [pool, tickLower, tickUpper, liquidity]),
    ),
    dependent(
      "uniswapSwap",
      plan(trader, callee, "UniswapV3Callee", "swapExactInput", [pool, true, swapIn, trader]),
    ),
    dependent(
      "uniswapSwapBack",
      plan(trader, callee, "UniswapV3Callee", "swapExactInput", [pool, false, swapBackIn, trader]),
    ),
    dependent(
      "uniswapBurn",
      plan(trader, callee, "UniswapV3Callee", "burn", [pool, tickLower, tickUpper, liquidity / 2n]),
    ),
    dependent(
      "uniswapCollect",
      plan(trader, callee, "UniswapV3Callee", "collect", [pool, tickLower, tickUpper, trader]),
    ),
    dependent("cloneCall", plan(trader, clone, "DemoNote", "setNote", ["Sextant demo note, edited"])),
    dependent(
      "aaveSupply",
      plan(borrower, aavePool, "DemoAavePool", "supply", [token, aave.supply, borrower, 0]),
    ),
    dependent(
      "aaveEnableCollateral",
      plan(borrower, aavePool, "DemoAavePool", "setUserUseReserveAsCollateral", [token, true]),
    ),
    // The borrower borrows this in the next block.
    plan(lender, aavePool, "DemoAavePool", "supply", [secondToken, 20_000n * secondTokenUnit, lender, 0]),
    dependent("proxyCallAfterUpgrade", plan(owner, proxy, "CounterV2", "incrementBy", [counterIncrement])),
  ]);

  const amount0Desired = 100n * unit0;
  const amount1Desired = 100n * unit1;
  const [positionMint] = await mineTogether(scenario, [
    dependent(
      "uniswapMintPosition",
      plan(liquidityProvider, positionManager, "NonfungiblePositionManager", "mint", [
        {
          token0,
          token1,
          fee: poolFee,
          tickLower,
          tickUpper,
          amount0Desired,
          amount1Desired,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: liquidityProvider,
          deadline: maxUint256,
        },
      ]),
    ),
    dependent("unwrap", plan(liquidityProvider, weth, "WETH9", "withdraw", [(wrap * 2n) / 5n])),
    dependent(
      "aaveBorrow",
      plan(borrower, aavePool, "DemoAavePool", "borrow", [secondToken, aave.borrow, 2n, 0, borrower]),
    ),
    dependent(
      "aaveRepay",
      plan(borrower, aavePool, "DemoAavePool", "repay", [secondToken, aave.repay, 2n, borrower]),
    ),
    dependent(
      "aaveWithdraw",
      plan(borrower, aavePool, "DemoAavePool", "withdraw", [token, aave.withdraw, borrower]),
    ),
    // At least 400 of the 500 supplied stay in the pool whatever the order of senders.
    plan(
      owner,
      aavePool,
      "DemoAavePool",
      "flashLoanSimple",
      [flashLoanReceiver, token, aave.flashLoan, "0x", 0],
      {
        example: "aaveFlashLoan",
      },
    ),
  ]);

  await mineTogether(scenario, [
    plan(
      liquidator,
      aavePool,
      "DemoAavePool",
      "liquidationCall",
      [token, secondToken, borrower, aave.liquidationDebt, false],
      {
        example: "aaveLiquidation",
      },
    ),
    plan(borrower, aavePool, "DemoAavePool", "setUserUseReserveAsCollateral", [token, false], {
      example: "aaveDisableCollateral",
    }),
  ]);

  const poolEvent = <args>(receipt: TransactionReceipt, eventName: string) =>
    eventArgs<args>(scenario, "UniswapV3Pool", receipt.logs, eventName);
  type Amounts = { amount0: bigint; amount1: bigint };
  const minted = poolEvent<Amounts>(mint, "Mint");
  const swapped = poolEvent<Amounts>(swap, "Swap");
  const swappedBack = poolEvent<Amounts>(swapBack, "Swap");
  const burnt = poolEvent<Amounts>(burn, "Burn");
  const collected = poolEvent<Amounts>(collect, "Collect");
  const increased = eventArgs<Amounts & { tokenId: bigint; liquidity: bigint }>(
    scenario,
    "NonfungiblePositionManager",
    positionMint.logs,
    "IncreaseLiquidity",
  );
  return {
    uniswap: {
      token0,
      token1,
      fee: poolFee,
      sqrtPriceX96,
      tickLower,
      tickUpper,
      mint: { liquidity, amount0: minted.amount0, amount1: minted.amount1 },
      // The pool reports what it received as positive and what it paid out as negative.
      swap: { amountIn: swapIn, amountOut: -swapped.amount1 },
      swapBack: { amountIn: swapBackIn, amountOut: -swappedBack.amount0 },
      burn: { liquidity: liquidity / 2n, amount0: burnt.amount0, amount1: burnt.amount1 },
      collect: { amount0: collected.amount0, amount1: collected.amount1 },
      position: {
        tokenId: increased.tokenId,
        amount0Desired,
        amount1Desired,
        liquidity: increased.liquidity,
        amount0: increased.amount0,
        amount1: increased.amount1,
      },
    },
    aave: {
      supply: aave.supply,
      withdraw: aave.withdraw,
      borrow: aave.borrow,
      repay: aave.repay,
      flashLoan: aave.flashLoan,
      flashLoanPremium: (aave.flashLoan * flashLoanPremiumBps) / 10_000n,
      liquidationDebt: aave.liquidationDebt,
      // Prices are 1:1 per whole token, so the debt's value converts by decimals, plus the bonus.
      liquidationCollateral:
        (aave.liquidationDebt * (10_000n + liquidationBonusBps) * parseEther("1")) /
        (10_000n * secondTokenUnit),
    },
    wrap,
    unwrap: (wrap * 2n) / 5n,
    counterIncrement,
  };
}

async function readView<value>(
  scenario: Scenario,
  address: Address,
  contractName: ContractName,
  functionName: string,
  args: unknown[] = [],
): Promise<value> {
  const abi = abiOf(scenario, contractName);
  return (await scenario.publicClient.readContract({ address, abi, functionName, args })) as value;
}

async function readSlot0(scenario: Scenario, pool: Address): Promise<{ tick: number }> {
  const [, tick] = await readView<readonly [bigint, number]>(scenario, pool, "UniswapV3Pool", "slot0");
  return { tick };
}

/** Arguments of the one `eventName` event among the logs; throws unless there is exactly one. */
function eventArgs<args>(
  scenario: Scenario,
  contractName: ContractName,
  logs: Log[],
  eventName: string,
): args {
  const events = parseEventLogs({ abi: abiOf(scenario, contractName), logs, eventName });
  if (events.length !== 1) throw new Error(`expected one ${eventName} event, found ${events.length}`);
  return events[0].args as args;
}

/** Sends one transaction with automine on, so it gets a block of its own. */
async function mineAlone(scenario: Scenario, plan: PlannedTransaction): Promise<TransactionReceipt> {
  const hash = await send(scenario, plan);
  return checkReceipt(scenario, plan, await waitForReceipt(scenario, hash));
}

/**
 * Sends the transactions with automine off and mines them into one block. Each sender's transactions go
 * in order (concurrent sends from one account collide on the nonce); different senders go in parallel.
 * Gas is estimated against the previous block, so plans must not depend on each other.
 */
async function mineTogether(scenario: Scenario, plans: PlannedTransaction[]): Promise<TransactionReceipt[]> {
  const bySender = new Map<Address, PlannedTransaction[]>();
  for (const plan of plans) bySender.set(plan.from, [...(bySender.get(plan.from) ?? []), plan]);
  const hashes = new Map<PlannedTransaction, Hash>();
  await scenario.testClient.setAutomine(false);
  try {
    await Promise.all(
      [...bySender.values()].map(async (senderPlans) => {
        for (const plan of senderPlans) hashes.set(plan, await send(scenario, plan));
      }),
    );
  } finally {
    await scenario.testClient.mine({ blocks: 1 });
    await scenario.testClient.setAutomine(true);
  }
  return Promise.all(
    plans.map(async (plan) =>
      checkReceipt(scenario, plan, await waitForReceipt(scenario, required(hashes.get(plan)))),
    ),
  );
}

async function send(scenario: Scenario, plan: PlannedTransaction): Promise<Hash> {
  const hash = await scenario.walletClient.request({
    method: "eth_sendTransaction",
    params: [formatTransactionRequest(transactionRequest(plan))],
  });
  scenario.transactionCount++;
  if (plan.example !== undefined) scenario.examples[plan.example] ??= hash;
  if (plan.fees === "legacy") scenario.examples.legacyTransaction ??= hash;
  if (plan.fees === "accessList") scenario.examples.accessListTransaction ??= hash;
  return hash;
}

function transactionRequest(plan: PlannedTransaction): TransactionRequest {
  const { from, to, data, value, gas } = plan;
  const request = { from, to, data, value, gas };
  // Well above anvil's base fee (1 gwei at genesis, falling while blocks stay under the gas target).
  switch (plan.fees ?? "nodeDefault") {
    case "legacy":
      return { ...request, type: "legacy", gasPrice: parseGwei("3") };
    case "accessList":
      return { ...request, type: "eip2930", gasPrice: parseGwei("2.5"), accessList: [] };
    case "eip1559":
      return {
        ...request,
        type: "eip1559",
        maxFeePerGas: parseGwei("20"),
        maxPriorityFeePerGas: parseGwei("1.5"),
      };
    case "nodeDefault":
      return request;
  }
}

async function waitForReceipt(scenario: Scenario, hash: Hash): Promise<TransactionReceipt> {
  const deadline = Date.now() + receiptTimeoutMs;
  for (;;) {
    try {
      return await scenario.publicClient.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${receiptTimeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function checkReceipt(scenario: Scenario, plan: PlannedTransaction, receipt: TransactionReceipt) {
  const failed = receipt.status === "reverted";
  if (failed !== (plan.expectFailure ?? false)) {
    const outcome = failed ? "reverted" : "succeeded";
    const target = plan.to ?? "a new contract";
    throw new Error(`demo transaction ${receipt.transactionHash} to ${target} ${outcome} unexpectedly`);
  }
  if (failed) scenario.failedTransactionHashes.push(receipt.transactionHash);
  return receipt;
}

function abiOf(scenario: Scenario, contractName: ContractName): Abi {
  const artifact = scenario.artifacts[contractName];
  if (artifact === undefined) throw new Error(`no compiled artifact for ${contractName}`);
  return artifact.abi;
}

function call(scenario: Scenario, contractName: ContractName, functionName: string, args: unknown[]): Hex {
  return encodeFunctionData({ abi: abiOf(scenario, contractName), functionName, args });
}

function deployData(scenario: Scenario, contractName: ContractName, args: unknown[]): Hex {
  const { bytecode } = scenario.artifacts[contractName];
  return encodeDeployData({ abi: abiOf(scenario, contractName), bytecode, args });
}

function createdChildren(scenario: Scenario, receipt: TransactionReceipt): Address[] {
  const logs = parseEventLogs({
    abi: abiOf(scenario, "Playground"),
    logs: receipt.logs,
    eventName: "ChildCreated",
  });
  return logs.map((log) => (log.args as { child: Address }).child);
}

function requireContractAddress(receipt: TransactionReceipt): Address {
  if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`);
  // Receipts carry lowercase addresses; checksum them like the rest of the result.
  return getAddress(receipt.contractAddress);
}

/** Picks accounts round-robin, skipping the excluded ones so a transfer never goes to its sender. */
function pick(accounts: Address[], index: number, ...excluded: Address[]): Address {
  for (let offset = 0; offset < accounts.length; offset++) {
    const account = accounts[(index + offset) % accounts.length];
    if (!excluded.includes(account)) return account;
  }
  throw new Error("no account left to pick");
}

function required<value>(value: value | undefined): value {
  if (value === undefined) throw new Error("scenario step ran before the step that provides its input");
  return value;
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

/** Salt of the CREATE2 child of a round; tests predict the child's address from it. */
export function create2Salt(round: number): Hex {
  return padHex(toHex(round + 1), { size: 32 });
}

function collectibleTokenUri(tokenId: bigint): string {
  const hue = Number((tokenId * 47n) % 360n);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
    `<rect width="100" height="100" fill="hsl(${hue},70%,55%)"/>` +
    `<text x="50" y="58" font-size="24" text-anchor="middle" fill="white">#${tokenId}</text></svg>`;
  const metadata = {
    name: `Sextant Demo Collectible #${tokenId}`,
    description: "A collectible minted by the Sextant demo scenario.",
    image: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
    attributes: [{ trait_type: "Hue", value: hue }],
  };
  return `data:application/json;base64,${Buffer.from(JSON.stringify(metadata)).toString("base64")}`;
}

function multiTokenUri(): string {
  const metadata = {
    name: "Sextant Demo Multi-Token",
    description: "Fungible and semi-fungible demo items.",
  };
  return `data:application/json;base64,${Buffer.from(JSON.stringify(metadata)).toString("base64")}`;
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
