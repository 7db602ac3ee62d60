import { type Abi, type AbiEvent, encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { aaveV3PoolAbi } from "../builtin-abis.ts";
import { aaveV3Actions } from "./aave-v3.ts";
import type { ActionLog } from "./transaction-action.ts";

// Widened to Abi: the helper below looks events up by a name chosen at run time.
const poolAbi: Abi = aaveV3PoolAbi;
const pool = "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2";
const dai = "0x6b175474e89094c44da98b954eedeac495271d0f";
const usdc = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const user = "0x1111111111111111111111111111111111111111";
const tokens = new Map([
  [dai, { symbol: "DAI", decimals: 18 }],
  [usdc, { symbol: "USDC", decimals: 6 }],
]);

function poolLog(name: string, args: Record<string, unknown>, logIndex: number, address = pool): ActionLog {
  const event = getAbiItem({ abi: poolAbi, name }) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], eventName: name, args } as never) as Hex[];
  const plain = event.inputs.filter((input) => !input.indexed);
  const data = encodeAbiParameters(
    plain,
    plain.map((input) => args[input.name as string]),
  );
  return { block_number: 12, log_index: logIndex, address, topics, data };
}

describe("aaveV3Actions", () => {
  it("turns each pool event into its action with the reserve's amount in whole tokens", () => {
    const logs = [
      poolLog(
        "Supply",
        { reserve: dai, user, onBehalfOf: user, amount: 25n * 10n ** 17n, referralCode: 0 },
        0,
      ),
      poolLog(
        "Borrow",
        {
          reserve: usdc,
          user,
          onBehalfOf: user,
          amount: 1_000_000n,
          interestRateMode: 2,
          borrowRate: 7n,
          referralCode: 0,
        },
        1,
      ),
      poolLog("Repay", { reserve: usdc, user, repayer: user, amount: 400_000n, useATokens: false }, 2),
      poolLog("Withdraw", { reserve: dai, user, to: user, amount: 10n ** 18n }, 3),
      poolLog(
        "FlashLoan",
        {
          target: user,
          initiator: user,
          asset: usdc,
          amount: 5_000_000n,
          interestRateMode: 0,
          premium: 4_500n,
          referralCode: 0,
        },
        4,
      ),
      poolLog("ReserveUsedAsCollateralEnabled", { reserve: dai, user }, 5),
      poolLog("ReserveUsedAsCollateralDisabled", { reserve: dai, user }, 6),
      poolLog(
        "LiquidationCall",
        {
          collateralAsset: dai,
          debtAsset: usdc,
          user,
          debtToCover: 250_000n,
          liquidatedCollateralAmount: 3n * 10n ** 17n,
          liquidator: user,
          receiveAToken: false,
        },
        7,
      ),
    ];
    const actions = aaveV3Actions({ logs, pool, tokens });
    const daiAddress = "0x6B175474E89094C44Da98b954EedeAC495271d0F";
    const usdcAddress = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
    expect(actions.map(({ protocol, type, data }) => ({ protocol, type, data }))).toEqual([
      {
        protocol: "aave_v3",
        type: "supply",
        data: { amount: "2.5", symbol: "DAI", address: daiAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "borrow",
        data: { amount: "1", symbol: "USDC", address: usdcAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "repay",
        data: { amount: "0.4", symbol: "USDC", address: usdcAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "withdraw",
        data: { amount: "1", symbol: "DAI", address: daiAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "flash_loan",
        data: { amount: "5", symbol: "USDC", address: usdcAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "enable_collateral",
        data: { symbol: "DAI", address: daiAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "disable_collateral",
        data: { symbol: "DAI", address: daiAddress, block_number: 12 },
      },
      {
        protocol: "aave_v3",
        type: "liquidation_call",
        data: {
          debt_amount: "0.25",
          debt_symbol: "USDC",
          debt_address: usdcAddress,
          collateral_amount: "0.3",
          collateral_symbol: "DAI",
          collateral_address: daiAddress,
          block_number: 12,
        },
      },
    ]);
  });

  it("reads only the configured pool and leaves out reserves it cannot scale", () => {
    const elsewhere = poolLog(
      "Supply",
      { reserve: dai, user, onBehalfOf: user, amount: 1n, referralCode: 0 },
      0,
      usdc,
    );
    const unknownReserve = poolLog("Withdraw", { reserve: user, user, to: user, amount: 1n }, 1);
    expect(aaveV3Actions({ logs: [elsewhere, unknownReserve], pool, tokens })).toEqual([]);
  });
});
