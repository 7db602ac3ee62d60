import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Address,
  createPublicClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hash,
  type Hex,
  hexToString,
  http,
  keccak256,
  type Log,
  numberToHex,
  type PublicClient,
  parseAbi,
  parseAbiParameters,
  parseEther,
  parseEventLogs,
  toEventSelector,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { at } from "../../test/support/elements.ts";
import { aaveV3PoolAbi } from "../decode/builtin-abis.ts";
import { required } from "../required.ts";
import { type Anvil, startAnvil } from "./anvil.ts";
import { compileDemoContracts, readPackagedArtifacts } from "./compile.ts";
import { create2Salt } from "./scenario/playground.ts";
import { runScenario, type ScenarioResult } from "./scenario.ts";

const timeout = 120_000;

type RpcBlock = { number: Hex; transactions: { hash: Hash; type: Hex }[] };
type RpcReceipt = { transactionHash: Hash; status: Hex };
type ParityTrace = {
  type: "call" | "create" | "suicide" | "reward";
  action: { creationMethod?: string; address?: Address; from?: Address };
  traceAddress: number[];
  transactionHash: Hash;
  error?: string;
};

describe("demo scenario on anvil", () => {
  let anvil: Anvil;
  let result: ScenarioResult;
  let client: PublicClient;
  let blocks: RpcBlock[];
  let receipts: RpcReceipt[];
  let traces: ParityTrace[];

  async function rpc<result>(method: string, params: unknown[]): Promise<result> {
    return (await client.request({ method: method as never, params: params as never })) as result;
  }

  async function forEachScenarioBlock<result>(
    read: (blockNumber: Hex) => Promise<result>,
  ): Promise<result[]> {
    const numbers: Hex[] = [];
    for (let block = result.startBlockNumber + 1n; block <= result.headBlockNumber; block++) {
      numbers.push(numberToHex(block));
    }
    return Promise.all(numbers.map(read));
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    result = await runScenario({ rpcUrl: anvil.rpcUrl });

    blocks = await forEachScenarioBlock((number) => rpc("eth_getBlockByNumber", [number, true]));
    receipts = (
      await forEachScenarioBlock((number) => rpc<RpcReceipt[]>("eth_getBlockReceipts", [number]))
    ).flat();
    traces = (await forEachScenarioBlock((number) => rpc<ParityTrace[]>("trace_block", [number]))).flat();
  }, timeout);

  afterAll(async () => {
    await anvil?.stop();
  }, timeout);

  test("mines a few hundred blocks holding every transaction it sent", () => {
    expect(result.headBlockNumber - result.startBlockNumber).toBeGreaterThanOrEqual(250n);
    expect(result.headBlockNumber - result.startBlockNumber).toBeLessThanOrEqual(450n);
    expect(receipts).toHaveLength(result.transactionCount);
    const transactionCounts = blocks.map((block) => block.transactions.length);
    expect(Math.max(...transactionCounts)).toBeGreaterThanOrEqual(3);
    expect(transactionCounts).toContain(1);
    expect(transactionCounts).toContain(0);
  });

  test("failed transactions are exactly the intended ones", () => {
    const failed = receipts
      .filter((receipt) => receipt.status === "0x0")
      .map((receipt) => receipt.transactionHash);
    expect(failed.length).toBeGreaterThan(0);
    expect(receipts.some((receipt) => receipt.status === "0x1")).toBe(true);
    expect(failed.sort()).toEqual([...result.failedTransactionHashes].sort());
  });

  test("legacy, access-list and EIP-1559 transactions all appear", () => {
    const types = new Set(
      blocks.flatMap((block) => block.transactions.map((transaction) => transaction.type)),
    );
    expect([...types].sort()).toEqual(["0x0", "0x1", "0x2"]);
  });

  test("the CREATE2 child lives at the address predicted from its salt", async () => {
    const artifacts = await compileDemoContracts();
    const predicted = getContractAddress({
      opcode: "CREATE2",
      from: result.contracts.playground,
      salt: create2Salt(0),
      bytecode: required(artifacts.Child, "Child's artifact").bytecode,
    });
    expect(predicted).toBe(result.contracts.create2Child);
    expect(await client.getCode({ address: predicted })).toMatch(/^0x[0-9a-f]{2,}$/);
  });

  test("traces show CREATE2, selfdestruct, nested calls and a caught inner revert", async () => {
    expect(traces.some((trace) => trace.type === "create" && trace.action.creationMethod === "create2")).toBe(
      true,
    );
    expect(traces.some((trace) => trace.type === "create" && trace.action.creationMethod === "create")).toBe(
      true,
    );
    expect(traces.some((trace) => trace.traceAddress.length >= 2 && trace.type === "call")).toBe(true);

    const selfdestruct = traces.find((trace) => trace.type === "suicide");
    expect(selfdestruct).toBeDefined();
    // Cancun: a contract destroyed in the transaction that created it is gone.
    const destroyed = await client.getCode({ address: selfdestruct?.action.address as Address });
    expect(destroyed ?? "0x").toBe("0x");

    const successful = new Set(
      receipts.filter((receipt) => receipt.status === "0x1").map((r) => r.transactionHash),
    );
    const caught = traces.filter((trace) => trace.traceAddress.length > 0 && trace.error !== undefined);
    expect(caught.some((trace) => successful.has(trace.transactionHash))).toBe(true);
  });

  test("collectibles carry data: JSON metadata with an inline image", async () => {
    const tokenUri = await client.readContract({
      address: result.contracts.collectible,
      abi: parseAbi(["function tokenURI(uint256) view returns (string)"]),
      functionName: "tokenURI",
      args: [1n],
    });
    expect(tokenUri.startsWith("data:application/json")).toBe(true);
    const metadata = JSON.parse(Buffer.from(at(tokenUri.split(","), 1), "base64").toString("utf8"));
    expect(metadata.name).toContain("#1");
    expect(metadata.image).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  test("the EIP-1967 proxy points at CounterV1, then at CounterV2 after the upgrade", async () => {
    const { contracts, examples, protocolAmounts } = result;
    // bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)
    const implementationSlot = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
    const implementationAt = async (blockNumber?: bigint) => {
      const slot = await client.getStorageAt({
        address: contracts.proxy,
        slot: implementationSlot,
        blockNumber,
      });
      return getAddress(`0x${slot?.slice(-40)}`);
    };
    const upgrade = await client.getTransactionReceipt({ hash: examples.proxyUpgrade });
    expect(await implementationAt(upgrade.blockNumber - 1n)).toBe(contracts.implementation);
    expect(await implementationAt()).toBe(contracts.counterV2);
    const upgraded = parseEventLogs({
      abi: parseAbi(["event Upgraded(address indexed implementation)"]),
      logs: await logsOf(examples.proxyUpgrade, contracts.proxy),
    });
    expect(upgraded.map((log) => log.args.implementation)).toEqual([contracts.counterV2]);

    const abi = parseAbi([
      "function value() view returns (uint256)",
      "function version() view returns (string)",
      "event ValueChanged(address indexed caller, uint256 previousValue, uint256 newValue)",
    ]);
    expect(await client.readContract({ address: contracts.proxy, abi, functionName: "version" })).toBe("2");
    const changed = at(
      parseEventLogs({
        abi,
        eventName: "ValueChanged",
        logs: await logsOf(examples.proxyCallAfterUpgrade, contracts.proxy),
      }),
      0,
    );
    expect(changed.args.newValue - changed.args.previousValue).toBe(protocolAmounts.counterIncrement);
    expect(await client.readContract({ address: contracts.proxy, abi, functionName: "value" })).toBe(
      changed.args.newValue,
    );
  });

  test("the clone is an EIP-1167 minimal proxy of the note implementation", async () => {
    const { contracts, examples } = result;
    const implementation = contracts.cloneImplementation.slice(2).toLowerCase();
    expect(await client.getCode({ address: contracts.clone })).toBe(
      `0x363d3d373d3d3d363d73${implementation}5af43d82803e903d91602b57fd5bf3`,
    );
    const created = traces.filter(
      (trace) => trace.transactionHash === examples.cloneCreation && trace.type === "create",
    );
    expect(created.map((trace) => trace.action.from && getAddress(trace.action.from))).toEqual([
      contracts.cloneFactory,
    ]);
    const abi = parseAbi([
      "function note() view returns (string)",
      "event NoteChanged(address indexed owner, string note)",
    ]);
    const changed = at(parseEventLogs({ abi, logs: await logsOf(examples.cloneCall, contracts.clone) }), 0);
    expect(changed.args.note).toBe("Sextant demo note, edited");
    expect(await client.readContract({ address: contracts.clone, abi, functionName: "note" })).toBe(
      changed.args.note,
    );
  });

  const transferTopic = toEventSelector("Transfer(address,address,uint256)");
  const erc20Abi = parseAbi([
    "event Transfer(address indexed from, address indexed to, uint256 value)",
    "event Approval(address indexed owner, address indexed spender, uint256 value)",
  ]);
  const erc721Abi = parseAbi([
    "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
    "event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
    "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
  ]);
  const erc1155Abi = parseAbi([
    "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
    "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  ]);

  async function logsOf(hash: Hash, address: Address): Promise<Log[]> {
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt.logs.filter((log) => log.address === address.toLowerCase());
  }

  /** Transfer logs of one emitter split by shape: ERC-20 (3 topics) and ERC-721 (4 topics). */
  function transferForms(logs: Log[]) {
    const transfers = logs.filter((log) => log.topics[0] === transferTopic);
    return {
      fungible: parseEventLogs({
        abi: erc20Abi,
        eventName: "Transfer",
        logs: transfers.filter((l) => l.topics.length === 3),
      }),
      nft: parseEventLogs({
        abi: erc721Abi,
        eventName: "Transfer",
        logs: transfers.filter((l) => l.topics.length === 4),
      }),
    };
  }

  /** ERC-20 transfers of one token in a successful transaction, as `[from, to, value]`. */
  async function fungibleTransfers(hash: Hash, token: Address) {
    const { fungible } = transferForms(await logsOf(hash, token));
    return fungible.map(({ args }) => [args.from, args.to, args.value]);
  }

  test("the Uniswap v3 factory created the pool the position manager finds, and it was initialized", async () => {
    const { contracts, examples, protocolAmounts } = result;
    const { token0, token1, fee, sqrtPriceX96 } = protocolAmounts.uniswap;
    expect([token0, token1].sort()).toEqual([contracts.token, contracts.secondToken].sort());
    expect(BigInt(token0)).toBeLessThan(BigInt(token1));
    const poolAbi = readPackagedArtifacts().UniswapV3Pool.abi;
    const factoryAbi = readPackagedArtifacts().UniswapV3Factory.abi;
    const created = parseEventLogs({
      abi: factoryAbi,
      eventName: "PoolCreated",
      logs: await client.getLogs({ address: contracts.uniswapV3Factory, fromBlock: result.startBlockNumber }),
    });
    expect(created.map((log) => log.args)).toEqual([
      { token0, token1, fee, tickSpacing: 60, pool: contracts.uniswapV3Pool },
    ]);
    // The position manager computes pool addresses from its built-in init code hash: it must match the pool's.
    const salt = keccak256(
      encodeAbiParameters(parseAbiParameters("address, address, uint24"), [token0, token1, fee]),
    );
    expect(
      getContractAddress({
        opcode: "CREATE2",
        from: contracts.uniswapV3Factory,
        salt,
        bytecode: readPackagedArtifacts().UniswapV3Pool.bytecode,
      }),
    ).toBe(contracts.uniswapV3Pool);

    const initialized = parseEventLogs({
      abi: poolAbi,
      eventName: "Initialize",
      logs: await client.getLogs({ address: contracts.uniswapV3Pool, fromBlock: result.startBlockNumber }),
    });
    expect(initialized.map((log) => (log.args as { sqrtPriceX96: bigint }).sqrtPriceX96)).toEqual([
      sqrtPriceX96,
    ]);
    const mint = await client.getTransactionReceipt({ hash: examples.uniswapMint });
    expect(at(initialized, 0).blockNumber).toBeLessThan(mint.blockNumber);
  });

  test("Uniswap v3 mint, swaps, burn and collect move the amounts sent", async () => {
    const { contracts, examples, protocolAmounts, accounts } = result;
    const { token0, token1, tickLower, tickUpper, mint, swap, swapBack, burn, collect } =
      protocolAmounts.uniswap;
    const pool = contracts.uniswapV3Pool;
    const trader = accounts[1];
    const abi = readPackagedArtifacts().UniswapV3Pool.abi;
    const poolEvent = async (hash: Hash, eventName: string) => {
      const events = parseEventLogs({ abi, eventName, logs: await logsOf(hash, pool) });
      expect(events).toHaveLength(1);
      return at(events, 0).args as Record<string, unknown>;
    };

    expect(await poolEvent(examples.uniswapMint, "Mint")).toEqual({
      sender: contracts.uniswapCallee,
      owner: contracts.uniswapCallee,
      tickLower,
      tickUpper,
      amount: mint.liquidity,
      amount0: mint.amount0,
      amount1: mint.amount1,
    });
    expect(mint.amount0).toBeGreaterThan(0n);
    expect(await fungibleTransfers(examples.uniswapMint, token0)).toEqual([[trader, pool, mint.amount0]]);
    expect(await fungibleTransfers(examples.uniswapMint, token1)).toEqual([[trader, pool, mint.amount1]]);

    expect(await poolEvent(examples.uniswapSwap, "Swap")).toMatchObject({
      sender: contracts.uniswapCallee,
      recipient: trader,
      amount0: swap.amountIn,
      amount1: -swap.amountOut,
    });
    expect(swap.amountOut).toBeGreaterThan(0n);
    expect(await fungibleTransfers(examples.uniswapSwap, token0)).toEqual([[trader, pool, swap.amountIn]]);
    expect(await fungibleTransfers(examples.uniswapSwap, token1)).toEqual([[pool, trader, swap.amountOut]]);
    expect(await poolEvent(examples.uniswapSwapBack, "Swap")).toMatchObject({
      amount0: -swapBack.amountOut,
      amount1: swapBack.amountIn,
    });
    expect(await fungibleTransfers(examples.uniswapSwapBack, token1)).toEqual([
      [trader, pool, swapBack.amountIn],
    ]);
    expect(await fungibleTransfers(examples.uniswapSwapBack, token0)).toEqual([
      [pool, trader, swapBack.amountOut],
    ]);

    expect(await poolEvent(examples.uniswapBurn, "Burn")).toEqual({
      owner: contracts.uniswapCallee,
      tickLower,
      tickUpper,
      amount: burn.liquidity,
      amount0: burn.amount0,
      amount1: burn.amount1,
    });
    expect(burn.liquidity).toBe(mint.liquidity / 2n);
    // Burning leaves the tokens owed to the position; only collect moves them.
    expect(await fungibleTransfers(examples.uniswapBurn, token0)).toEqual([]);
    expect(await poolEvent(examples.uniswapCollect, "Collect")).toEqual({
      owner: contracts.uniswapCallee,
      recipient: trader,
      tickLower,
      tickUpper,
      amount0: collect.amount0,
      amount1: collect.amount1,
    });
    // The position also earned the fee of the swap paid in each token.
    expect(collect.amount0).toBeGreaterThan(burn.amount0);
    expect(collect.amount1).toBeGreaterThan(burn.amount1);
    expect(await fungibleTransfers(examples.uniswapCollect, token0)).toEqual([
      [pool, trader, collect.amount0],
    ]);
    expect(await fungibleTransfers(examples.uniswapCollect, token1)).toEqual([
      [pool, trader, collect.amount1],
    ]);
  });

  test("the position manager mints a position NFT for the liquidity it adds", async () => {
    const { contracts, examples, protocolAmounts, accounts } = result;
    const { token0, token1, tickLower, tickUpper, position } = protocolAmounts.uniswap;
    const provider = accounts[2];
    const manager = contracts.uniswapV3PositionManager;
    const nft = transferForms(await logsOf(examples.uniswapMintPosition, manager)).nft;
    expect(nft.map(({ args }) => [args.from, args.to, args.tokenId])).toEqual([
      [zeroAddress, provider, position.tokenId],
    ]);
    const increased = at(
      parseEventLogs({
        abi: readPackagedArtifacts().NonfungiblePositionManager.abi,
        eventName: "IncreaseLiquidity",
        logs: await logsOf(examples.uniswapMintPosition, manager),
      }),
      0,
    );
    expect(increased.args).toEqual({
      tokenId: position.tokenId,
      liquidity: position.liquidity,
      amount0: position.amount0,
      amount1: position.amount1,
    });
    // One side is used up to the amount desired; the price decides how much of the other goes in.
    expect(position.amount0).toBeLessThanOrEqual(position.amount0Desired);
    expect(position.amount1).toBeLessThanOrEqual(position.amount1Desired);
    const pool = contracts.uniswapV3Pool;
    expect(await fungibleTransfers(examples.uniswapMintPosition, token0)).toEqual([
      [provider, pool, position.amount0],
    ]);
    expect(await fungibleTransfers(examples.uniswapMintPosition, token1)).toEqual([
      [provider, pool, position.amount1],
    ]);

    const positions = (await client.readContract({
      address: manager,
      abi: readPackagedArtifacts().NonfungiblePositionManager.abi,
      functionName: "positions",
      args: [position.tokenId],
    })) as readonly unknown[];
    expect(positions.slice(2, 8)).toEqual([token0, token1, 3000, tickLower, tickUpper, position.liquidity]);
    const tokenUri = await client.readContract({
      address: manager,
      abi: parseAbi(["function tokenURI(uint256) view returns (string)"]),
      functionName: "tokenURI",
      args: [position.tokenId],
    });
    const metadata = JSON.parse(Buffer.from(at(tokenUri.split(","), 1), "base64").toString("utf8"));
    expect(metadata.name).toBe(`Sextant Demo Uniswap V3 Position #${position.tokenId}`);
  });

  test("each Aave v3 event carries the amounts sent, and the tokens move accordingly", async () => {
    const { contracts, examples, protocolAmounts, accounts } = result;
    const { token, secondToken, aavePool: pool, aaveFlashLoanReceiver: receiver } = contracts;
    const amounts = protocolAmounts.aave;
    const [owner, , , borrower, , liquidator] = accounts;
    const aaveEvents = async (hash: Hash) =>
      parseEventLogs({ abi: aaveV3PoolAbi, logs: await logsOf(hash, pool) }).map(({ eventName, args }) => ({
        eventName,
        args,
      }));

    expect(await aaveEvents(examples.aaveSupply)).toEqual([
      {
        eventName: "Supply",
        args: {
          reserve: token,
          user: borrower,
          onBehalfOf: borrower,
          amount: amounts.supply,
          referralCode: 0,
        },
      },
    ]);
    expect(await fungibleTransfers(examples.aaveSupply, token)).toEqual([[borrower, pool, amounts.supply]]);
    expect(await aaveEvents(examples.aaveEnableCollateral)).toEqual([
      { eventName: "ReserveUsedAsCollateralEnabled", args: { reserve: token, user: borrower } },
    ]);
    expect(await aaveEvents(examples.aaveBorrow)).toEqual([
      {
        eventName: "Borrow",
        args: {
          reserve: secondToken,
          user: borrower,
          onBehalfOf: borrower,
          amount: amounts.borrow,
          interestRateMode: 2,
          borrowRate: 5n * 10n ** 25n,
          referralCode: 0,
        },
      },
    ]);
    expect(await fungibleTransfers(examples.aaveBorrow, secondToken)).toEqual([
      [pool, borrower, amounts.borrow],
    ]);
    expect(await aaveEvents(examples.aaveRepay)).toEqual([
      {
        eventName: "Repay",
        args: {
          reserve: secondToken,
          user: borrower,
          repayer: borrower,
          amount: amounts.repay,
          useATokens: false,
        },
      },
    ]);
    expect(await fungibleTransfers(examples.aaveRepay, secondToken)).toEqual([
      [borrower, pool, amounts.repay],
    ]);
    expect(await aaveEvents(examples.aaveWithdraw)).toEqual([
      {
        eventName: "Withdraw",
        args: { reserve: token, user: borrower, to: borrower, amount: amounts.withdraw },
      },
    ]);
    expect(await fungibleTransfers(examples.aaveWithdraw, token)).toEqual([
      [pool, borrower, amounts.withdraw],
    ]);
    expect(await aaveEvents(examples.aaveFlashLoan)).toEqual([
      {
        eventName: "FlashLoan",
        args: {
          target: receiver,
          initiator: owner,
          asset: token,
          amount: amounts.flashLoan,
          interestRateMode: 0,
          premium: amounts.flashLoanPremium,
          referralCode: 0,
        },
      },
    ]);
    expect(amounts.flashLoanPremium).toBeGreaterThan(0n);
    expect(await fungibleTransfers(examples.aaveFlashLoan, token)).toEqual([
      [pool, receiver, amounts.flashLoan],
      [receiver, pool, amounts.flashLoan + amounts.flashLoanPremium],
    ]);
    expect(await aaveEvents(examples.aaveLiquidation)).toEqual([
      {
        eventName: "LiquidationCall",
        args: {
          collateralAsset: token,
          debtAsset: secondToken,
          user: borrower,
          debtToCover: amounts.liquidationDebt,
          liquidatedCollateralAmount: amounts.liquidationCollateral,
          liquidator,
          receiveAToken: false,
        },
      },
    ]);
    expect(await fungibleTransfers(examples.aaveLiquidation, secondToken)).toEqual([
      [liquidator, pool, amounts.liquidationDebt],
    ]);
    expect(await fungibleTransfers(examples.aaveLiquidation, token)).toEqual([
      [pool, liquidator, amounts.liquidationCollateral],
    ]);
    expect(await aaveEvents(examples.aaveDisableCollateral)).toEqual([
      { eventName: "ReserveUsedAsCollateralDisabled", args: { reserve: token, user: borrower } },
    ]);

    // Everything the pool ever received and paid in `token`: the borrower's supply is its only deposit.
    const balanceOf = parseAbi(["function balanceOf(address) view returns (uint256)"]);
    const poolBalance = (address: Address) =>
      client.readContract({ address, abi: balanceOf, functionName: "balanceOf", args: [pool] });
    expect(await poolBalance(token)).toBe(
      amounts.supply - amounts.withdraw - amounts.liquidationCollateral + amounts.flashLoanPremium,
    );
    const supplies = parseEventLogs({
      abi: aaveV3PoolAbi,
      eventName: "Supply",
      logs: await client.getLogs({ address: pool, fromBlock: result.startBlockNumber }),
    }).map((log) => log.args);
    const lenderSupply = supplies.filter((args) => args.reserve === secondToken);
    expect(lenderSupply).toHaveLength(1);
    expect(await poolBalance(secondToken)).toBe(
      at(lenderSupply, 0).amount - amounts.borrow + amounts.repay + amounts.liquidationDebt,
    );
  });

  test("WETH wrap and unwrap move the ether sent", async () => {
    const { contracts, examples, protocolAmounts } = result;
    const abi = parseAbi([
      "event Deposit(address indexed dst, uint256 wad)",
      "event Withdrawal(address indexed src, uint256 wad)",
    ]);
    const deposit = at(parseEventLogs({ abi, logs: await logsOf(examples.wrap, contracts.weth) }), 0);
    expect(deposit.eventName === "Deposit" && deposit.args.wad).toBe(protocolAmounts.wrap);
    const withdrawal = at(parseEventLogs({ abi, logs: await logsOf(examples.unwrap, contracts.weth) }), 0);
    expect(withdrawal.eventName === "Withdrawal" && withdrawal.args.wad).toBe(protocolAmounts.unwrap);
    expect(await client.getBalance({ address: contracts.weth })).toBe(
      protocolAmounts.wrap - protocolAmounts.unwrap,
    );
  });

  test("ERC-20, ERC-721 and ERC-1155 burns are transfers to the zero address", async () => {
    const { contracts, examples } = result;
    const tokenBurn = at(transferForms(await logsOf(examples.tokenBurn, contracts.token)).fungible, 0);
    expect(tokenBurn.args.to).toBe(zeroAddress);
    expect(tokenBurn.args.value).toBeGreaterThan(0n);
    const tokenMint = at(transferForms(await logsOf(examples.tokenMint, contracts.token)).fungible, 0);
    expect(tokenMint.args.from).toBe(zeroAddress);

    const collectibleBurn = transferForms(await logsOf(examples.collectibleBurn, contracts.collectible)).nft;
    expect(collectibleBurn).toHaveLength(1);
    expect(at(collectibleBurn, 0).args.to).toBe(zeroAddress);
    await expect(
      client.readContract({
        address: contracts.collectible,
        abi: parseAbi(["function ownerOf(uint256) view returns (address)"]),
        functionName: "ownerOf",
        args: [at(collectibleBurn, 0).args.tokenId],
      }),
    ).rejects.toThrow();

    const single = parseEventLogs({
      abi: erc1155Abi,
      eventName: "TransferSingle",
      logs: await logsOf(examples.multiTokenBurn, contracts.multiToken),
    });
    expect(single).toHaveLength(1);
    expect(at(single, 0).args.to).toBe(zeroAddress);
    const batch = parseEventLogs({
      abi: erc1155Abi,
      eventName: "TransferBatch",
      logs: await logsOf(examples.multiTokenBurnBatch, contracts.multiToken),
    });
    expect(batch).toHaveLength(1);
    expect(at(batch, 0).args.to).toBe(zeroAddress);
    expect(at(batch, 0).args.ids).toHaveLength(3);
  });

  test("ERC-20 approvals include a revocation to zero", async () => {
    const { contracts, examples } = result;
    const approval = parseEventLogs({
      abi: erc20Abi,
      eventName: "Approval",
      logs: await logsOf(examples.tokenApproval, contracts.token),
    });
    expect(approval.map((log) => log.args.value)).toEqual([parseEther("50")]);
    const revoked = parseEventLogs({
      abi: erc20Abi,
      eventName: "Approval",
      logs: await logsOf(examples.tokenApprovalRevoked, contracts.token),
    });
    expect(revoked.map((log) => log.args.value)).toEqual([0n]);
    expect(at(revoked, 0).args.spender).not.toBe(zeroAddress);
  });

  test("ERC-1155 mints and transfers a batch of ten distinct ids in one transaction", async () => {
    const { contracts, examples } = result;
    for (const [hash, fromZero] of [
      [examples.multiTokenMintBatchOfTen, true],
      [examples.multiTokenBatchOfTen, false],
    ] as const) {
      const batches = parseEventLogs({
        abi: erc1155Abi,
        eventName: "TransferBatch",
        logs: await logsOf(hash, contracts.multiToken),
      });
      expect(batches).toHaveLength(1);
      const { ids, values, from, to } = at(batches, 0).args;
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
      expect(values).toHaveLength(10);
      expect(from === zeroAddress).toBe(fromZero);
      expect(to).not.toBe(zeroAddress);
    }
  });

  test("holds lists deeper than a page, with values a JSON double rounds and ties", async () => {
    const { contracts, depth } = result;
    const balances = parseAbi([
      "function balanceOf(address) view returns (uint256)",
      "function balanceOf(address, uint256) view returns (uint256)",
    ]);
    const read = (address: Address, args: [Address] | [Address, bigint]) =>
      client.readContract({ address, abi: balances, functionName: "balanceOf", args }) as Promise<bigint>;
    const tokenBalances = await Promise.all(
      depth.tokenHolders.map((holder) => read(contracts.token, [holder])),
    );
    expect(new Set(depth.tokenHolders).size).toBeGreaterThan(100);
    expect(tokenBalances.filter((value) => value > 10n ** 21n).length).toBeGreaterThan(50);
    const between = tokenBalances.filter((value) => value > 2n ** 53n && value < 10n ** 21n);
    expect(between.length).toBeGreaterThan(50);
    // Neighbours one apart that are the same double, and ties.
    expect(
      between.some((value) => between.includes(value - 1n) && Number(value) === Number(value - 1n)),
    ).toBe(true);
    expect(new Set(tokenBalances).size).toBeLessThan(tokenBalances.length);
    const idBalances = await Promise.all(
      depth.multiTokenIdHolders.map((holder) => read(contracts.multiToken, [holder, depth.multiTokenId])),
    );
    expect(new Set(depth.multiTokenIdHolders).size).toBeGreaterThan(50);
    expect(idBalances.every((value) => value > 0n)).toBe(true);
    const idsHeld = await Promise.all(
      depth.multiTokenIds.map((id) => read(contracts.multiToken, [depth.multiTokenIdsHolder, id])),
    );
    expect(idsHeld.filter((value) => value > 10n ** 21n).length).toBeGreaterThan(50);
  });

  test("the hybrid emits the ERC-20 and the ERC-721 Transfer in one transaction", async () => {
    const { contracts, examples } = result;
    for (const hash of [examples.hybridTransfer, examples.hybridNftTransfer]) {
      const { fungible, nft } = transferForms(await logsOf(hash, contracts.hybrid));
      expect(fungible).toHaveLength(1);
      expect(nft).toHaveLength(1);
      const fungibleTransfer = at(fungible, 0);
      const nftTransfer = at(nft, 0);
      expect(fungibleTransfer.args.value).toBe(parseEther("1"));
      expect(nftTransfer.args.tokenId).toBeGreaterThan(2n ** 255n);
      expect([nftTransfer.args.from, nftTransfer.args.to]).toEqual([
        fungibleTransfer.args.from,
        fungibleTransfer.args.to,
      ]);
    }
    const approvals = await logsOf(examples.hybridNftApproval, contracts.hybrid);
    expect(approvals.map((log) => log.topics.length)).toEqual([4]);
    expect(parseEventLogs({ abi: erc721Abi, eventName: "Approval", logs: approvals })).toHaveLength(1);
    const forAll = await logsOf(examples.hybridApprovalForAll, contracts.hybrid);
    expect(
      at(parseEventLogs({ abi: erc721Abi, eventName: "ApprovalForAll", logs: forAll }), 0).args.approved,
    ).toBe(true);
  });

  test("replaying the hybrid's logs gives its balances and NFT owners", async () => {
    const address = result.contracts.hybrid;
    const logs = await client.getLogs({
      address,
      fromBlock: result.startBlockNumber + 1n,
      toBlock: result.headBlockNumber,
    });
    const { fungible, nft } = transferForms(logs);
    const balances = new Map<Address, bigint>();
    for (const { args } of fungible) {
      balances.set(args.from, (balances.get(args.from) ?? 0n) - args.value);
      balances.set(args.to, (balances.get(args.to) ?? 0n) + args.value);
    }
    const owners = new Map<bigint, Address>();
    for (const { args } of nft) {
      if (args.from !== zeroAddress) expect(owners.get(args.tokenId)).toBe(args.from);
      owners.set(args.tokenId, args.to);
    }
    const burnt = [...owners.values()].filter((owner) => owner === zeroAddress).length;
    expect(burnt).toBeGreaterThan(0);
    expect(nft.length).toBeGreaterThan(owners.size);

    const abi = parseAbi([
      "function balanceOf(address) view returns (uint256)",
      "function erc721BalanceOf(address) view returns (uint256)",
      "function ownerOf(uint256) view returns (address)",
      "function totalSupply() view returns (uint256)",
    ]);
    const read = (functionName: "balanceOf" | "erc721BalanceOf", holder: Address) =>
      client.readContract({ address, abi, functionName, args: [holder] });
    for (const holder of result.accounts) {
      const balance = await read("balanceOf", holder);
      expect(balance).toBe(balances.get(holder) ?? 0n);
      const nftCount = [...owners.values()].filter((owner) => owner === holder).length;
      expect(await read("erc721BalanceOf", holder)).toBe(BigInt(nftCount));
      expect(BigInt(nftCount)).toBe(balance / parseEther("1"));
    }
    expect(await client.readContract({ address, abi, functionName: "totalSupply" })).toBe(
      -(balances.get(zeroAddress) ?? 0n),
    );
    await Promise.all(
      [...owners].map(async ([id, owner]) => {
        const ownerOf = client.readContract({ address, abi, functionName: "ownerOf", args: [id] });
        if (owner === zeroAddress) await expect(ownerOf).rejects.toThrow();
        else expect(await ownerOf).toBe(owner);
      }),
    );
  });

  test("the bytes32 token's name and symbol are bare bytes32 words", async () => {
    const { contracts, examples } = result;
    const abi = parseAbi([
      "function name() view returns (bytes32)",
      "function symbol() view returns (bytes32)",
    ]);
    const rawCall = async (functionName: "name" | "symbol") => {
      const { data } = await client.call({
        to: contracts.bytes32Token,
        data: encodeFunctionData({ abi, functionName }),
      });
      return data as Hex;
    };
    const name = await rawCall("name");
    expect(name).toHaveLength(2 + 64);
    expect(hexToString(name, { size: 32 })).toBe("Sextant Bytes32 Token");
    expect(hexToString(await rawCall("symbol"), { size: 32 })).toBe("SB32");
    await expect(
      client.readContract({
        address: contracts.bytes32Token,
        abi: parseAbi(["function name() view returns (string)"]),
        functionName: "name",
      }),
    ).rejects.toThrow();
    const { fungible } = transferForms(await logsOf(examples.bytes32TokenTransfer, contracts.bytes32Token));
    expect(fungible).toHaveLength(1);
  });

  test("the reverting-name token's name() reverts and symbol() does not decode, yet it transfers", async () => {
    const { contracts, examples } = result;
    const abi = parseAbi([
      "function name() view returns (string)",
      "function symbol() view returns (string)",
      "function decimals() view returns (uint8)",
    ]);
    await expect(
      client.call({
        to: contracts.revertingNameToken,
        data: encodeFunctionData({ abi, functionName: "name" }),
      }),
    ).rejects.toThrow(/revert/i);
    const { data: symbol } = await client.call({
      to: contracts.revertingNameToken,
      data: encodeFunctionData({ abi, functionName: "symbol" }),
    });
    expect(symbol).toHaveLength(2 + 64);
    await expect(
      client.readContract({ address: contracts.revertingNameToken, abi, functionName: "symbol" }),
    ).rejects.toThrow();
    expect(
      await client.readContract({ address: contracts.revertingNameToken, abi, functionName: "decimals" }),
    ).toBe(18);
    const { fungible } = transferForms(
      await logsOf(examples.revertingNameTokenTransfer, contracts.revertingNameToken),
    );
    expect(fungible).toHaveLength(1);
    expect(at(fungible, 0).args.value).toBeGreaterThan(0n);
  });
});

describe("compileDemoContracts", () => {
  let cacheDirectory: string;

  beforeAll(async () => {
    cacheDirectory = await mkdtemp(join(tmpdir(), "sextant-solc-"));
  });

  afterAll(async () => {
    await rm(cacheDirectory, { recursive: true, force: true });
  });

  test(
    "compiles once, then serves identical artifacts from the disk cache",
    async () => {
      const compiled = await compileDemoContracts({ cacheDirectory });
      expect(Object.keys(compiled)).toEqual(
        expect.arrayContaining([
          "DemoToken",
          "DemoCollectible",
          "DemoMultiToken",
          "DemoHybrid",
          "DemoBytes32Token",
          "DemoRevertingNameToken",
          "CounterV1",
          "CounterV2",
          "CounterProxy",
          "DemoDollar",
          "UniswapV3Callee",
          "DemoAavePool",
          "DemoNoteFactory",
        ]),
      );
      expect(required(compiled.Playground, "Playground's artifact").bytecode).toMatch(/^0x[0-9a-f]+$/);
      expect(await readdir(cacheDirectory)).toHaveLength(1);

      expect(await compileDemoContracts({ cacheDirectory })).toEqual(compiled);
      // A second call reads the cache file instead of compiling: a mark put in the file comes back.
      const [cacheFile] = await readdir(cacheDirectory);
      const path = join(cacheDirectory, cacheFile as string);
      const marked = { ...compiled, Playground: { ...compiled.Playground, bytecode: "0x00" } };
      await writeFile(path, JSON.stringify(marked));
      expect(await compileDemoContracts({ cacheDirectory })).toEqual(marked);
    },
    timeout,
  );
});
