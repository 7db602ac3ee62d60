import {
  type Address,
  checksumAddress,
  type DecodeEventLogReturnType,
  decodeEventLog,
  getAbiItem,
  type Hex,
  toEventSelector,
  zeroAddress,
} from "viem";
import { uniswapV3PoolAbi } from "../builtin-abis.ts";
import { transferTopic } from "../token-transfer.ts";
import {
  type ActionLog,
  type ActionToken,
  scaledAmount,
  type TransactionAction,
} from "./transaction-action.ts";

/** First topics of the pool events that become actions. */
export const uniswapV3PoolTopics = (["Mint", "Burn", "Collect", "Swap"] as const).map((name) =>
  toEventSelector(getAbiItem({ abi: uniswapV3PoolAbi, name })),
);

export type UniswapV3ActionsParameters = {
  /** One transaction's logs, in log order. */
  logs: ActionLog[];
  /** The position manager, lowercase hex, or null when not configured. */
  positionManager: string | null;
  /** The factory's pools among the logs' emitters, with their tokens. */
  pools: Map<string, { token0: string; token1: string }>;
  tokens: Map<string, ActionToken>;
};

/**
 * Uniswap v3 actions of one transaction: `mint`, `burn`, `collect` and `swap` from the events of pools the
 * configured factory created, and one `mint_nft` per receiver of position NFTs minted by the configured
 * position manager. A pool event whose tokens' symbols or decimals are unknown is left out.
 */
export function uniswapV3Actions({
  logs,
  positionManager,
  pools,
  tokens,
}: UniswapV3ActionsParameters): TransactionAction[] {
  const actions: TransactionAction[] = [];
  const minted = new Map<string, { ids: string[]; log_index: number }>();
  for (const log of logs) {
    const [topic0, fromTopic, toTopic, idTopic, ...extra] = log.topics;
    if (
      log.address === positionManager &&
      topic0 === transferTopic &&
      idTopic !== undefined &&
      extra.length === 0 &&
      topicAddress(fromTopic) === zeroAddress
    ) {
      const to = topicAddress(toTopic);
      const receiver = minted.get(to) ?? { ids: [], log_index: log.log_index };
      receiver.ids.push(BigInt(idTopic).toString());
      minted.set(to, receiver);
      continue;
    }
    const pool = pools.get(log.address);
    if (pool === undefined) continue;
    const action = poolAction(log, pool, tokens);
    if (action) actions.push(action);
  }
  const blockNumber = logs[0]?.block_number;
  for (const [to, { ids, log_index }] of minted) {
    actions.push({
      protocol: "uniswap_v3",
      type: "mint_nft",
      // Blockscout names the position NFT with these fixed words and the manager's lowercase address.
      data: {
        name: "Uniswap V3: Positions NFT",
        symbol: "UNI-V3-POS",
        address: positionManager as string,
        to: checksumAddress(to as Address),
        ids,
        block_number: blockNumber as number,
      },
      log_index,
    });
  }
  return actions.sort((a, b) => a.log_index - b.log_index);
}

function poolAction(
  log: ActionLog,
  pool: { token0: string; token1: string },
  tokens: Map<string, ActionToken>,
): TransactionAction | null {
  let event: DecodeEventLogReturnType<typeof uniswapV3PoolAbi>;
  try {
    event = decodeEventLog({
      abi: uniswapV3PoolAbi,
      topics: log.topics as [Hex, ...Hex[]],
      data: log.data as Hex,
    });
  } catch {
    return null;
  }
  let side0 = { address: pool.token0, amount: 0n };
  let side1 = { address: pool.token1, amount: 0n };
  switch (event.eventName) {
    case "Mint":
    case "Burn":
    case "Collect":
      side0.amount = event.args.amount0;
      side1.amount = event.args.amount1;
      break;
    case "Swap": {
      const { amount0, amount1 } = event.args;
      // The token paid into the pool comes first, the token taken out second (as its absolute amount).
      if (amount0 < 0n && amount1 >= 0n) {
        [side0, side1] = [
          { address: pool.token1, amount: amount1 },
          { address: pool.token0, amount: -amount0 },
        ];
      } else if (amount1 < 0n && amount0 >= 0n) {
        side0.amount = amount0;
        side1.amount = -amount1;
      } else if (amount1 === 0n && amount0 >= 0n) {
        side0.amount = amount0;
      } else {
        return null;
      }
      break;
    }
    default:
      return null;
  }
  const token0 = tokens.get(side0.address);
  const token1 = tokens.get(side1.address);
  const amount0 = scaledAmount(side0.amount, token0);
  const amount1 = scaledAmount(side1.amount, token1);
  if (amount0 === null || amount1 === null) return null;
  return {
    protocol: "uniswap_v3",
    type: event.eventName.toLowerCase(),
    data: {
      amount0,
      symbol0: token0?.symbol as string,
      address0: checksumAddress(side0.address as Address),
      amount1,
      symbol1: token1?.symbol as string,
      address1: checksumAddress(side1.address as Address),
      block_number: log.block_number,
    },
    log_index: log.log_index,
  };
}

/** The address in the low 20 bytes of a topic, lowercase. */
export function topicAddress(topic: string | undefined): string {
  return `0x${(topic ?? "").slice(-40)}`;
}
