import type { Queryable } from "../client.ts";
import { byteaParam, byteaText } from "../table-rows.ts";

/** The two tokens of a pool, lowercase hex, as its factory announced them. */
export type UniswapV3Pool = { token0: string; token1: string };

export type FindUniswapV3PoolsParameters = {
  factory: string;
  /** `PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24, address pool)`. */
  poolCreatedTopic: string;
  /** Candidate pool addresses, lowercase hex. */
  pools: Iterable<string>;
};

/**
 * Which of the candidates the factory created, from its `PoolCreated` logs: only those are Uniswap pools,
 * whatever else emits the same events. The pool address is the second word of the log's data.
 */
export async function findUniswapV3Pools(
  db: Queryable,
  { factory, poolCreatedTopic, pools }: FindUniswapV3PoolsParameters,
): Promise<Map<string, UniswapV3Pool>> {
  const candidates = [...new Set(pools)];
  if (candidates.length === 0) return new Map();
  const rows = await db.query<{ pool: string; token0: string; token1: string }>(
    `SELECT '0x' || encode(substring(data FROM 45 FOR 20), 'hex') AS pool,
       '0x' || encode(substring(topic1 FROM 13), 'hex') AS token0,
       '0x' || encode(substring(topic2 FROM 13), 'hex') AS token1
     FROM logs
     WHERE address = $1 AND topic0 = $2 AND length(data) = 64
       AND substring(data FROM 45 FOR 20) = ANY($3::text[]::bytea[])`,
    [byteaParam(factory), byteaParam(poolCreatedTopic), candidates.map(byteaText)],
  );
  return new Map(rows.map(({ pool, token0, token1 }) => [pool, { token0, token1 }]));
}
