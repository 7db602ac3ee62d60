import {
  type Abi,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hash,
  type Hex,
  type Log,
  type PublicClient,
  parseEventLogs,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { required } from "../../required.ts";
import { type Artifacts, artifactOf } from "../compile.ts";

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

/** The demo's compiled contracts and the published ones the scenario deploys. */
export type ContractName =
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

/** The node's unlocked dev accounts the scenario sends from: at least six; the first deploys every contract. */
export type ScenarioAccounts = [Address, Address, Address, Address, Address, Address, ...Address[]];

/** Whether the node unlocked enough accounts for the scenario. */
export function isScenarioAccounts(accounts: Address[]): accounts is ScenarioAccounts {
  return accounts.length >= 6;
}

/** What the activities share while the scenario runs: the clients, the artifacts, and what was made so far. */
export type Scenario = {
  publicClient: PublicClient;
  walletClient: WalletClient;
  testClient: TestClient<"anvil">;
  artifacts: Artifacts;
  accounts: ScenarioAccounts;
  contracts: Partial<ScenarioContracts>;
  examples: Partial<ScenarioExamples>;
  transactionCount: number;
  failedTransactionHashes: Hash[];
  collectible: { nextTokenId: bigint; holders: Map<bigint, Address> };
  multiToken: { lastMint?: { holder: Address; ids: bigint[]; amounts: bigint[] } };
  playground: { lastCreateChild?: Address };
};

/** Calls `functionName` of the `contractName` contract at `address`, at the head. */
export async function readView<value>(
  scenario: Scenario,
  address: Address,
  contractName: ContractName,
  functionName: string,
  args: unknown[] = [],
): Promise<value> {
  const abi = abiOf(scenario, contractName);
  return (await scenario.publicClient.readContract({ address, abi, functionName, args })) as value;
}

/** Arguments of the one `eventName` event among the logs; throws unless there is exactly one. */
export function eventArgs<args>(
  scenario: Scenario,
  contractName: ContractName,
  logs: Log[],
  eventName: string,
): args {
  const events = parseEventLogs({ abi: abiOf(scenario, contractName), logs, eventName });
  const [event, ...others] = events;
  if (event === undefined || others.length > 0)
    throw new Error(`expected one ${eventName} event, found ${events.length}`);
  return event.args as args;
}

/** The ABI of `contractName`; throws when it was not compiled. */
export function abiOf(scenario: Scenario, contractName: ContractName): Abi {
  return artifactOf(scenario.artifacts, contractName).abi;
}

/** Calldata of `functionName` of `contractName` with `args`. */
export function call(
  scenario: Scenario,
  contractName: ContractName,
  functionName: string,
  args: unknown[],
): Hex {
  return encodeFunctionData({ abi: abiOf(scenario, contractName), functionName, args });
}

/** Creation code of `contractName` with its constructor `args`. */
export function deployData(scenario: Scenario, contractName: ContractName, args: unknown[]): Hex {
  const { abi, bytecode } = artifactOf(scenario.artifacts, contractName);
  return encodeDeployData({ abi, bytecode, args });
}

/** The checksummed address of the contract `receipt`'s transaction created; throws when it created none. */
export function requireContractAddress(receipt: TransactionReceipt): Address {
  if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`);
  // Receipts carry lowercase addresses; checksum them like the rest of the result.
  return getAddress(receipt.contractAddress);
}

/** `items.map(map)` that keeps a tuple a tuple: one result per item, in the items' order. */
export function mapTuple<const Items extends readonly unknown[], Result>(
  items: Items,
  map: (item: Items[number]) => Result,
): { -readonly [Index in keyof Items]: Result } {
  // `map` keeps the length and order, which its array return type cannot say.
  return items.map((item) => map(item)) as { -readonly [Index in keyof Items]: Result };
}

/** Picks accounts round-robin, skipping the excluded ones so a transfer never goes to its sender. */
export function pick(accounts: Address[], index: number, ...excluded: Address[]): Address {
  const start = index % accounts.length;
  const inTurn = [...accounts.slice(start), ...accounts.slice(0, start)];
  const account = inTurn.find((candidate) => !excluded.includes(candidate));
  if (account === undefined) throw new Error("no account left to pick");
  return account;
}

/** The address of the `key` contract, which an earlier step deployed; throws when the steps ran out of order. */
export function deployed(scenario: Scenario, key: keyof ScenarioContracts): Address {
  return required(scenario.contracts[key], `the ${key} contract, which an earlier step deploys,`);
}
