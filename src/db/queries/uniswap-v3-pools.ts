import { getAbiItem, toEventSelector } from "viem";
import { uniswapV3FactoryAbi } from "../../decode/builtin-abis.ts";
import type { Queryable } from "../client.ts";
import { byteaLiteral, byteaParam, byteaText } from "../table-rows.ts";

/**
 * `PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24, address pool)`,
 * written into the statement as the index `logs_pool_created` (migration 035) is defined: a parameter
 * would not let the planner prove that index applies.
 */
const poolCreatedTopic = toEventSelector(getAbiItem({ abi: uniswapV3FactoryAbi, name: "PoolCreated" }));

/**
 * The condition that `factory`'s `PoolCreated` log `alias` announced the pool whose address (bytea) is `pool`:
 * the pool address is the second word of the log's data, which `logs_pool_created` is keyed by. The factory
 * is checked on the row (`IS TRUE` keeps the emitter's indexes out): a plan kept for any factory otherwise
 * took the factory's range of `PoolCreated` logs, all of its pools, for each pool looked up.
 */
export function poolCreatedSql(alias: string, factory: string, pool: string): string {
  return `${alias}.topic0 = ${byteaLiteral(poolCreatedTopic)} AND substring(${alias}.data FROM 45 FOR 20) = ${pool}
       AND (${alias}.address = ${factory}) IS TRUE AND length(${alias}.data) = 64`;
}

/** The two tokens of a pool, lowercase hex, as its factory announced them. */
export type UniswapV3Pool = { token0: string; token1: string };

export type FindUniswapV3PoolsParameters = {
  factory: string;
  /** Candidate pool addresses, lowercase hex. */
  pools: Iterable<string>;
};

/**
 * Which of the candidates the factory created, from its `PoolCreated` logs: only those are Uniswap pools,
 * whatever else emits the same events. The pool address is the second word of the log's data; the logs are
 * found by it, so the cost is the candidates', not the factory's history.
 */
export async function findUniswapV3Pools(
  db: Queryable,
  { factory, pools }: FindUniswapV3PoolsParameters,
): Promise<Map<string, UniswapV3Pool>> {
  const candidates = [...new Set(pools)];
  if (candidates.length === 0) return new Map();
  const rows = await db.query<{ pool: string; token0: string; token1: string }>(
    `SELECT '0x' || encode(substring(data FROM 45 FOR 20), 'hex') AS pool,
       '0x' || encode(substring(topic1 FROM 13), 'hex') AS token0,
       '0x' || encode(substring(topic2 FROM 13), 'hex') AS token1
     FROM logs p
     WHERE ${poolCreatedSql("p", "$1", "ANY($2::text[]::bytea[])")}`,
    [byteaParam(factory), candidates.map(byteaText)],
  );
  return new Map(rows.map(({ pool, token0, token1 }) => [pool, { token0, token1 }]));
}
