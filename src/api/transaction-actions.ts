import { zeroHash } from "viem";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/client.ts";
import { type TransactionLogRange, transactionKey } from "../db/queries/of-transactions.ts";
import { findTokens } from "../db/queries/token-balances.ts";
import {
  type LogEvents,
  listTransactionLogs,
  matchesEvents,
  type TransactionLogRow,
} from "../db/queries/transaction-logs.ts";
import { findUniswapV3Pools } from "../db/queries/uniswap-v3-pools.ts";
import { aaveV3Actions, aaveV3PoolTopics } from "../decode/actions/aave-v3.ts";
import type { TransactionAction } from "../decode/actions/transaction-action.ts";
import { topicAddress, uniswapV3Actions, uniswapV3PoolTopics } from "../decode/actions/uniswap-v3.ts";
import { transferTopic } from "../decode/token-transfer.ts";

/** The protocol contracts whose events become actions, lowercase hex; null turns a protocol off. */
export type ActionProtocols = {
  uniswapV3Factory: string | null;
  uniswapV3PositionManager: string | null;
  aaveV3Pool: string | null;
};

/** The protocols of a configuration, as lowercase hex. */
export function actionProtocols(
  config: Pick<Config, "uniswapV3Factory" | "uniswapV3PositionManager" | "aaveV3Pool">,
): ActionProtocols {
  return {
    uniswapV3Factory: config.uniswapV3Factory?.toLowerCase() ?? null,
    uniswapV3PositionManager: config.uniswapV3PositionManager?.toLowerCase() ?? null,
    aaveV3Pool: config.aaveV3Pool?.toLowerCase() ?? null,
  };
}

/** The events actions are told from, for the protocols configured: the logs to ask for. */
export function actionEvents({
  uniswapV3Factory: factory,
  uniswapV3PositionManager: positionManager,
  aaveV3Pool: pool,
}: ActionProtocols): LogEvents[] {
  return [
    ...(factory ? [{ topic0s: uniswapV3PoolTopics, poolsOf: factory }] : []),
    // The position manager's ERC-721 mints (Transfers from zero): `mint_nft` actions.
    ...(positionManager ? [{ topic0s: [transferTopic], emitter: positionManager, topic1: zeroHash }] : []),
    ...(pool ? [{ topic0s: aaveV3PoolTopics, emitter: pool }] : []),
  ];
}

/**
 * The actions of each transaction of a page, keyed `block_number/index`: one query for the protocol
 * events among their logs, then {@link actionsOfLogs}.
 */
export async function loadTransactionActions(
  db: Queryable,
  protocols: ActionProtocols,
  transactions: readonly TransactionLogRange[],
): Promise<Map<string, TransactionAction[]>> {
  const events = actionEvents(protocols);
  if (events.length === 0 || transactions.length === 0) return new Map();
  return actionsOfLogs(db, protocols, await listTransactionLogs(db, { transactions, events }));
}

/**
 * The actions told by some transactions' logs, keyed `block_number/index`: one query for the pools among
 * the emitters, one for the tokens involved. Logs of events other than {@link actionEvents} are passed over,
 * so a caller may ask for more events in the same statement.
 */
export async function actionsOfLogs(
  db: Queryable,
  protocols: ActionProtocols,
  transactionLogs: readonly TransactionLogRow[],
): Promise<Map<string, TransactionAction[]>> {
  const {
    uniswapV3Factory: factory,
    uniswapV3PositionManager: positionManager,
    aaveV3Pool: pool,
  } = protocols;
  const events = actionEvents(protocols);
  const logs = transactionLogs.filter((log) => matchesEvents(log, events));
  if (logs.length === 0) return new Map();
  const poolLogs = logs.filter((log) => uniswapV3PoolTopics.includes(log.topics[0] as never));
  const pools = factory
    ? await findUniswapV3Pools(db, { factory, pools: poolLogs.map((log) => log.address) })
    : new Map();
  const tokenAddresses = [
    ...[...pools.values()].flatMap(({ token0, token1 }) => [token0, token1]),
    ...logs.filter((log) => log.address === pool).flatMap((log) => log.topics.slice(1).map(topicAddress)),
  ];
  const tokens = await findTokens(db, tokenAddresses);
  const byTransaction = new Map<string, TransactionLogRow[]>();
  for (const log of logs) {
    const key = transactionKey(log.block_number, log.transaction_index);
    byTransaction.set(key, [...(byTransaction.get(key) ?? []), log]);
  }
  const actions = new Map<string, TransactionAction[]>();
  for (const [key, logsOfTransaction] of byTransaction) {
    const found = [
      ...uniswapV3Actions({ logs: logsOfTransaction, positionManager, pools, tokens }),
      ...(pool ? aaveV3Actions({ logs: logsOfTransaction, pool, tokens }) : []),
    ].sort((a, b) => a.log_index - b.log_index);
    if (found.length > 0) actions.set(key, found);
  }
  return actions;
}

/** An action as the API shows it. */
export function renderAction({ protocol, type, data }: TransactionAction) {
  return { protocol, type, data };
}
