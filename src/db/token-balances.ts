import type { Queryable } from "./client.ts";

/**
 * Adds (`sign` 1) or takes back (`sign` -1) the balance changes of the token transfers stored in blocks
 * `from..to`: each transfer moves its amount per id from sender to recipient (ERC-20 on id -1, one unit
 * per ERC-721 id). Used when a range is written and when a reorganization orphans blocks, so balances
 * always equal the sum of the stored transfers. The zero address is never a holder, and a balance back
 * at zero is deleted.
 */
export async function applyTokenBalanceChanges(
  tx: Queryable,
  from: bigint,
  to: bigint,
  sign: 1 | -1,
): Promise<void> {
  const changed = await tx.query<{
    token_address: Uint8Array;
    token_id: string;
    holder: Uint8Array;
    empty: boolean;
  }>(
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
     ON CONFLICT (token_address, token_id, holder) DO UPDATE SET value = token_balances.value + excluded.value
     RETURNING token_address, token_id::text, holder, value = 0 AS empty`,
    [from.toString(), to.toString(), sign],
  );
  // No zero rows: a balance that returns to zero is the same as one that never existed, whichever
  // order of ranges and reorganizations led there.
  const keys = changed.filter((row) => row.empty);
  if (keys.length === 0) return;
  await tx.query(
    `DELETE FROM token_balances b
     USING unnest($1::text[]::bytea[], $2::text[]::numeric[], $3::text[]::bytea[]) AS k(token_address, token_id, holder)
     WHERE b.token_address = k.token_address AND b.token_id = k.token_id AND b.holder = k.holder`,
    [
      keys.map((row) => `\\x${Buffer.from(row.token_address).toString("hex")}`),
      keys.map((row) => row.token_id),
      keys.map((row) => `\\x${Buffer.from(row.holder).toString("hex")}`),
    ],
  );
}
