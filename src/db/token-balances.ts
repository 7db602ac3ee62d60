import type { Queryable } from "./client.ts";

/**
 * Adds (`sign` 1) or takes back (`sign` -1) the balance changes of the token transfers stored in blocks
 * `from..to`: each transfer moves its amount per id from sender to recipient (ERC-20 on id -1, one unit
 * per ERC-721 id). Used when a range is written and when a reorganization orphans blocks, so balances
 * always equal the sum of the stored transfers. The zero address is never a holder.
 */
export async function applyTokenBalanceChanges(
  tx: Queryable,
  from: bigint,
  to: bigint,
  sign: 1 | -1,
): Promise<void> {
  await tx.query(
    `INSERT INTO token_balances (token_address, token_id, holder, value)
     SELECT token_address, token_id, holder, sum(delta) * $3
     FROM (
       SELECT t.token_address, m.token_id, side.holder, side.direction * m.amount AS delta
       FROM token_transfers t
       CROSS JOIN LATERAL unnest(
         CASE WHEN t.token_type = 'ERC-20' THEN ARRAY[-1]::numeric[] ELSE t.token_ids END,
         CASE WHEN t.token_type = 'ERC-721' THEN ARRAY[1]::numeric[] ELSE t.amounts END
       ) AS m(token_id, amount)
       CROSS JOIN LATERAL (VALUES (t.from_address, -1), (t.to_address, 1)) AS side(holder, direction)
       WHERE t.block_number BETWEEN $1 AND $2
     ) moves
     WHERE holder <> '\\x0000000000000000000000000000000000000000'::bytea
     GROUP BY token_address, token_id, holder
     ON CONFLICT (token_address, token_id, holder) DO UPDATE SET value = token_balances.value + excluded.value`,
    [from.toString(), to.toString(), sign],
  );
}
