import {
  type Abi,
  type AbiEvent,
  encodeAbiParameters,
  encodeEventTopics,
  getAbiItem,
  type Hex,
  zeroAddress,
} from "viem";
import { describe, expect, it } from "vitest";
import { at } from "../../../test/support/elements.ts";
import { uniswapV3PoolAbi } from "../builtin-abis.ts";
import type { ActionLog } from "./transaction-action.ts";
import { uniswapV3Actions } from "./uniswap-v3.ts";

// Widened to Abi: the helper below looks events up by a name chosen at run time.
const poolAbi: Abi = uniswapV3PoolAbi;
const pool = "0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8";
const usdc = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const weth = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const positionManager = "0xc36442b4a4522e871399cd717abdd847ab11fe88";
const owner = "0x1111111111111111111111111111111111111111";
const pools = new Map([[pool, { token0: usdc, token1: weth }]]);
const tokens = new Map([
  [usdc, { symbol: "USDC", decimals: 6 }],
  [weth, { symbol: "WETH", decimals: 18 }],
]);

/** A pool log as a node would return it, encoded with the pool's own ABI. */
function poolLog(name: string, args: Record<string, unknown>, logIndex: number, address = pool): ActionLog {
  const event = getAbiItem({ abi: poolAbi, name }) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], eventName: name, args } as never) as Hex[];
  const data = encodeAbiParameters(
    event.inputs.filter((input) => !input.indexed),
    event.inputs.filter((input) => !input.indexed).map((input) => args[input.name as string]),
  );
  return { block_number: 7, log_index: logIndex, address, topics, data };
}

const swap = (amount0: bigint, amount1: bigint, logIndex = 3) =>
  poolLog(
    "Swap",
    { sender: owner, recipient: owner, amount0, amount1, sqrtPriceX96: 1n, liquidity: 1n, tick: -5 },
    logIndex,
  );

describe("uniswapV3Actions", () => {
  it("puts the token paid into the pool first and the token taken out second, in whole units", () => {
    const [sellUsdc] = uniswapV3Actions({
      logs: [swap(2_500_000_000n, -1_000_000_000_000_000_000n)],
      positionManager,
      pools,
      tokens,
    });
    expect(sellUsdc).toEqual({
      protocol: "uniswap_v3",
      type: "swap",
      data: {
        amount0: "2500",
        symbol0: "USDC",
        address0: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        amount1: "1",
        symbol1: "WETH",
        address1: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
        block_number: 7,
      },
      log_index: 3,
    });
    const sellWeth = at(
      uniswapV3Actions({
        logs: [swap(-2_400_000_000n, 1_500_000_000_000_000_000n)],
        positionManager,
        pools,
        tokens,
      }),
      0,
    );
    expect(sellWeth.data).toMatchObject({
      amount0: "1.5",
      symbol0: "WETH",
      amount1: "2400",
      symbol1: "USDC",
    });
  });

  it("leaves out swaps in which both amounts leave the pool, and events of pools the factory did not create", () => {
    expect(uniswapV3Actions({ logs: [swap(-1n, -1n)], positionManager, pools, tokens })).toEqual([]);
    const impostor = poolLog(
      "Mint",
      { sender: owner, owner, tickLower: -10, tickUpper: 10, amount: 1n, amount0: 1n, amount1: 1n },
      1,
      "0x2222222222222222222222222222222222222222",
    );
    expect(uniswapV3Actions({ logs: [impostor], positionManager, pools, tokens })).toEqual([]);
  });

  it("reads mint, burn and collect amounts as they are, and skips tokens whose decimals are unknown", () => {
    const logs = [
      poolLog(
        "Mint",
        {
          sender: owner,
          owner,
          tickLower: -60,
          tickUpper: 60,
          amount: 5n,
          amount0: 1_000_000n,
          amount1: 10n ** 17n,
        },
        1,
      ),
      poolLog(
        "Burn",
        { owner, tickLower: -60, tickUpper: 60, amount: 5n, amount0: 500_000n, amount1: 0n },
        2,
      ),
      poolLog(
        "Collect",
        { owner, recipient: owner, tickLower: -60, tickUpper: 60, amount0: 500_001n, amount1: 1n },
        4,
      ),
    ];
    const actions = uniswapV3Actions({ logs, positionManager, pools, tokens });
    expect(actions.map(({ type, data }) => [type, data.amount0, data.amount1])).toEqual([
      ["mint", "1", "0.1"],
      ["burn", "0.5", "0"],
      ["collect", "0.500001", "0.000000000000000001"],
    ]);
    const unknownWeth = new Map([[usdc, { symbol: "USDC", decimals: 6 }]]);
    expect(uniswapV3Actions({ logs, positionManager, pools, tokens: unknownWeth })).toEqual([]);
  });

  it("groups position NFTs minted by the position manager per receiver", () => {
    const transfer = (to: string, id: bigint, logIndex: number, from: string = zeroAddress): ActionLog => ({
      block_number: 9,
      log_index: logIndex,
      address: positionManager,
      topics: [
        "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        `0x${from.slice(2).padStart(64, "0")}`,
        `0x${to.slice(2).padStart(64, "0")}`,
        `0x${id.toString(16).padStart(64, "0")}`,
      ],
      data: "0x",
    });
    const actions = uniswapV3Actions({
      logs: [transfer(owner, 5n, 2), transfer(owner, 6n, 5), transfer(owner, 7n, 6, owner)],
      positionManager,
      pools,
      tokens,
    });
    expect(actions).toEqual([
      {
        protocol: "uniswap_v3",
        type: "mint_nft",
        data: {
          name: "Uniswap V3: Positions NFT",
          symbol: "UNI-V3-POS",
          address: positionManager,
          to: "0x1111111111111111111111111111111111111111",
          ids: ["5", "6"],
          block_number: 9,
        },
        log_index: 2,
      },
    ]);
  });
});
