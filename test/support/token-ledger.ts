import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from "viem";
import type { Queryable } from "../../src/db/client.ts";
import { byteaText } from "../../src/db/table-rows.ts";
import type { RpcClient } from "../../src/rpc/client.ts";
import { eth_call } from "../../src/rpc/eth_call.ts";

const abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function balanceOf(address, uint256) view returns (uint256)",
  "function ownerOf(uint256) view returns (address)",
]);

/** A balance the database and the node disagree on; `node` null where the node gave no balance. */
export type BalanceMismatch = {
  token: Hex;
  type: string | null;
  id: string;
  holder: Hex;
  stored: string;
  node: string | null;
};

/** The balances compared by {@link tokenBalanceMismatches}, and those that differ. */
export type TokenBalanceCheck = {
  compared: number;
  byType: Record<string, number>;
  mismatches: BalanceMismatch[];
};

/**
 * Compares with the node at `block` every balance a stored transfer moved (each party but the zero address,
 * each id of a batch; id -1 for fungible amounts) and every stored balance: `balanceOf` for ERC-20, ERC-1155
 * and ERC-404's fungible side, `ownerOf` (1 for the owner, else 0) for ERC-721 and ERC-404's ids. A moved
 * balance with no stored row counts as zero, so a lost balance shows as well as a wrong one. `tokens` narrows
 * it to those contracts (where others only emit the events, with no balances to ask).
 */
export async function tokenBalanceMismatches(
  db: Queryable,
  client: RpcClient,
  block: bigint,
  { tokens }: { tokens?: Hex[] } = {},
): Promise<TokenBalanceCheck> {
  const rows = await db.query<{ token: Hex; type: string | null; id: string; holder: Hex; stored: string }>(
    `SELECT '0x' || encode(k.token_address, 'hex') AS token, t.type, k.token_id::text AS id,
       '0x' || encode(k.holder, 'hex') AS holder, COALESCE(b.value, 0)::text AS stored
     FROM (
       SELECT x.token_address, m.token_id, side.holder
       FROM token_transfers x
       CROSS JOIN LATERAL unnest(
         CASE WHEN x.token_type = 'ERC-20' THEN ARRAY[-1]::numeric[] ELSE x.token_ids END
       ) AS m(token_id)
       CROSS JOIN LATERAL (VALUES (x.from_address), (x.to_address)) AS side(holder)
       WHERE side.holder <> '\\x0000000000000000000000000000000000000000'::bytea
       UNION
       SELECT token_address, token_id, holder FROM token_balances
     ) k
     LEFT JOIN tokens t ON t.address = k.token_address
     LEFT JOIN token_balances b
       ON b.token_address = k.token_address AND b.token_id = k.token_id AND b.holder = k.holder
     ${tokens === undefined ? "" : "WHERE k.token_address = ANY($1::text[]::bytea[])"}
     ORDER BY 1, 3, 4`,
    tokens === undefined ? [] : [tokens.map((token) => byteaText(token.toLowerCase()))],
  );
  const askedByOwnerOf = (row: (typeof rows)[number]) =>
    row.type === "ERC-721" || (row.type === "ERC-404" && row.id !== "-1");
  const answers = await eth_call(client, {
    calls: rows.map((row) => ({
      to: row.token,
      data: askedByOwnerOf(row)
        ? encodeFunctionData({ abi, functionName: "ownerOf", args: [BigInt(row.id)] })
        : row.id === "-1"
          ? encodeFunctionData({ abi, functionName: "balanceOf", args: [row.holder] })
          : encodeFunctionData({ abi, functionName: "balanceOf", args: [row.holder, BigInt(row.id)] }),
    })),
    block: { number: block },
  });
  const byType: Record<string, number> = {};
  const mismatches: BalanceMismatch[] = [];
  rows.forEach((row, i) => {
    const type = row.type ?? "no token row";
    byType[type] = (byType[type] ?? 0) + 1;
    const answer = answers[i];
    // An answer too short for a word (or an error) gives no balance, except where ownerOf reverts: a burnt
    // or never minted id, which nobody holds.
    const word = typeof answer === "string" && answer.length >= 66 ? answer : null;
    let node: string | null = null;
    if (askedByOwnerOf(row)) {
      if (typeof answer !== "string") node = "0";
      else if (word !== null) {
        const owner = decodeFunctionResult({ abi, functionName: "ownerOf", data: word });
        node = owner.toLowerCase() === row.holder ? "1" : "0";
      }
    } else if (word !== null) {
      node = BigInt(word.slice(0, 66)).toString();
    }
    if (node !== row.stored) mismatches.push({ ...row, node });
  });
  return { compared: rows.length, byType, mismatches };
}

/** Rows of each counter unlike the balances, as {@link tokenCounterMismatches} reads them. */
export type TokenCounterMismatches = {
  tokens: Record<string, unknown>[];
  holdings: Record<string, unknown>[];
  instances: Record<string, unknown>[];
};

/**
 * The counters kept with the balances that differ from the balances' own aggregates: each token's
 * `holders_count` (distinct holders above zero), each `token_holders` row (ids held above zero, their summed
 * value, the token's type) and each instance's `holders` and `units`. All empty when they are exact.
 */
export async function tokenCounterMismatches(db: Queryable): Promise<TokenCounterMismatches> {
  const tokens = await db.query(
    `SELECT '0x' || encode(t.address, 'hex') AS token, t.holders_count, c.holders
     FROM tokens t
     CROSS JOIN LATERAL (
       SELECT count(DISTINCT b.holder) AS holders FROM token_balances b
       WHERE b.token_address = t.address AND b.value > 0
     ) c
     WHERE t.holders_count <> c.holders`,
  );
  const holdings = await db.query(
    `SELECT '0x' || encode(COALESCE(h.token_address, g.token_address), 'hex') AS token,
       h.ids AS kept_ids, g.ids, h.ids_value::text AS kept_value, g.ids_value::text AS value,
       h.token_contract_type AS kept_type, g.type
     FROM token_holders h
     FULL JOIN (
       SELECT b.token_address, b.holder, count(*) AS ids, sum(b.value) AS ids_value, min(t.type) AS type
       FROM token_balances b JOIN tokens t ON t.address = b.token_address
       WHERE b.token_id >= 0 AND b.value > 0 GROUP BY b.token_address, b.holder
     ) g ON g.token_address = h.token_address AND g.holder = h.holder
     WHERE h.ids IS DISTINCT FROM g.ids OR h.ids_value IS DISTINCT FROM g.ids_value
       OR h.token_contract_type IS DISTINCT FROM g.type`,
  );
  const instances = await db.query(
    `SELECT '0x' || encode(COALESCE(i.token_address, g.token_address), 'hex') AS token,
       COALESCE(i.token_id, g.token_id)::text AS token_id, i.holders AS kept_holders, g.holders,
       i.units::text AS kept_units, g.units::text AS units
     FROM token_instances i
     FULL JOIN (
       SELECT token_address, token_id, count(*) AS holders, sum(value) AS units FROM token_balances
       WHERE token_id >= 0 AND value > 0 GROUP BY token_address, token_id
     ) g ON g.token_address = i.token_address AND g.token_id = i.token_id
     WHERE i.token_address IS NULL
       OR (i.holders, i.units) <> (COALESCE(g.holders, 0), COALESCE(g.units, 0))`,
  );
  return { tokens, holdings, instances };
}
