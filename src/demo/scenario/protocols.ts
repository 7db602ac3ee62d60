import { type Address, getAddress, maxUint256, parseEther, type TransactionReceipt } from "viem";
import {
  type ContractName,
  call,
  deployData,
  deployed,
  eventArgs,
  mapTuple,
  readView,
  requireContractAddress,
  type Scenario,
  type ScenarioContracts,
  type ScenarioExamples,
} from "./context.ts";
import { mineTogether, type PlannedTransaction } from "./mine.ts";

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
export async function protocolActivity(scenario: Scenario): Promise<ProtocolAmounts> {
  const { accounts, contracts } = scenario;
  const [owner, trader, liquidityProvider, borrower, lender, liquidator] = accounts;
  const token = deployed(scenario, "token");
  const proxy = deployed(scenario, "proxy");
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

  const deployment = (contractName: ContractName, args: unknown[] = []): PlannedTransaction => ({
    from: owner,
    data: deployData(scenario, contractName, args),
  });

  const [factory, weth, secondToken, descriptor, counterV2, aavePool, cloneImplementation] = mapTuple(
    await mineTogether(scenario, [
      deployment("UniswapV3Factory"),
      deployment("WETH9"),
      deployment("DemoDollar", [owner]),
      deployment("DemoPositionDescriptor"),
      deployment("CounterV2"),
      deployment("DemoAavePool"),
      deployment("DemoNote"),
    ]),
    requireContractAddress,
  );
  Object.assign(contracts, {
    uniswapV3Factory: factory,
    weth,
    secondToken,
    counterV2,
    aavePool,
    cloneImplementation,
  } satisfies Partial<ScenarioContracts>);

  // The pool is created in the same block, after the deployments.
  const [managerDeployment, calleeDeployment, noteFactoryDeployment, receiverDeployment] = await mineTogether(
    scenario,
    [
      deployment("NonfungiblePositionManager", [factory, weth, descriptor]),
      deployment("UniswapV3Callee", [factory, trader]),
      deployment("DemoNoteFactory", [cloneImplementation]),
      deployment("DemoFlashLoanReceiver", [aavePool]),
      plan(owner, factory, "UniswapV3Factory", "createPool", [token, secondToken, poolFee]),
    ],
  );
  const [positionManager, callee, cloneFactory, flashLoanReceiver] = mapTuple(
    [managerDeployment, calleeDeployment, noteFactoryDeployment, receiverDeployment],
    requireContractAddress,
  );
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

async function readSlot0(scenario: Scenario, pool: Address): Promise<{ tick: number }> {
  const [, tick] = await readView<readonly [bigint, number]>(scenario, pool, "UniswapV3Pool", "slot0");
  return { tick };
}
