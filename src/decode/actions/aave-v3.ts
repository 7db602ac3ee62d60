import {
  type Address,
  checksumAddress,
  type DecodeEventLogReturnType,
  decodeEventLog,
  getAbiItem,
  type Hex,
  toEventSelector,
} from "viem";
import { aaveV3PoolAbi } from "../builtin-abis.ts";
import {
  type ActionLog,
  type ActionToken,
  scaledAmount,
  type TransactionAction,
} from "./transaction-action.ts";

const actionTypes = {
  Supply: "supply",
  Withdraw: "withdraw",
  Borrow: "borrow",
  Repay: "repay",
  FlashLoan: "flash_loan",
  ReserveUsedAsCollateralEnabled: "enable_collateral",
  ReserveUsedAsCollateralDisabled: "disable_collateral",
  LiquidationCall: "liquidation_call",
} as const;

/** First topics of the pool events that become actions. */
export const aaveV3PoolTopics = (Object.keys(actionTypes) as (keyof typeof actionTypes)[]).map((name) =>
  toEventSelector(getAbiItem({ abi: aaveV3PoolAbi, name })),
);

export type AaveV3ActionsParameters = {
  /** One transaction's logs, in log order. */
  logs: ActionLog[];
  /** The configured pool, lowercase hex. */
  pool: string;
  tokens: Map<string, ActionToken>;
};

/**
 * Aave v3 actions of one transaction, from the configured pool's events: `supply`, `withdraw`, `borrow`,
 * `repay`, `flash_loan` (`{amount, symbol, address}`), `enable_collateral`, `disable_collateral`
 * (`{symbol, address}`) and `liquidation_call` (debt and collateral sides). Amounts are in whole tokens;
 * an event whose reserve's symbol or decimals are unknown is left out.
 */
export function aaveV3Actions({ logs, pool, tokens }: AaveV3ActionsParameters): TransactionAction[] {
  const actions: TransactionAction[] = [];
  for (const log of logs) {
    if (log.address !== pool) continue;
    const event = decodePoolLog(log);
    if (event === null || !becomesAction(event.eventName)) continue;
    const type = actionTypes[event.eventName];
    const data = actionData(event, tokens);
    if (data)
      actions.push({
        protocol: "aave_v3",
        type,
        data: { ...data, block_number: log.block_number },
        log_index: log.log_index,
      });
  }
  return actions;
}

type PoolEvent = DecodeEventLogReturnType<typeof aaveV3PoolAbi>;

function becomesAction(eventName: string): eventName is keyof typeof actionTypes {
  return Object.hasOwn(actionTypes, eventName);
}

/** The pool event a log holds, or null when it is none (another layout under the same topic). */
function decodePoolLog(log: ActionLog): PoolEvent | null {
  try {
    return decodeEventLog({
      abi: aaveV3PoolAbi,
      topics: log.topics as [Hex, ...Hex[]],
      data: log.data as Hex,
    });
  } catch {
    return null;
  }
}

function actionData(event: PoolEvent, tokens: Map<string, ActionToken>): Record<string, string> | null {
  switch (event.eventName) {
    case "Supply":
    case "Withdraw":
    case "Borrow":
    case "Repay":
      return reserveAmount(event.args.reserve, event.args.amount, tokens);
    case "FlashLoan":
      return reserveAmount(event.args.asset, event.args.amount, tokens);
    case "ReserveUsedAsCollateralEnabled":
    case "ReserveUsedAsCollateralDisabled": {
      const token = tokens.get(event.args.reserve.toLowerCase());
      if (token?.symbol == null) return null;
      return { symbol: token.symbol, address: checksumAddress(event.args.reserve) };
    }
    case "LiquidationCall": {
      const debt = reserveAmount(event.args.debtAsset, event.args.debtToCover, tokens);
      const collateral = reserveAmount(
        event.args.collateralAsset,
        event.args.liquidatedCollateralAmount,
        tokens,
      );
      if (debt === null || collateral === null) return null;
      return {
        debt_amount: debt.amount,
        debt_symbol: debt.symbol,
        debt_address: debt.address,
        collateral_amount: collateral.amount,
        collateral_symbol: collateral.symbol,
        collateral_address: collateral.address,
      };
    }
    default:
      return null;
  }
}

function reserveAmount(
  reserve: Address,
  amount: bigint,
  tokens: Map<string, ActionToken>,
): { amount: string; symbol: string; address: string } | null {
  const token = tokens.get(reserve.toLowerCase());
  const scaled = scaledAmount(amount, token);
  if (scaled === null || token?.symbol == null) return null;
  return { amount: scaled, symbol: token.symbol, address: checksumAddress(reserve) };
}
