import type { Queryable } from "./client.ts";

/**
 * Adds (`sign` 1) or takes back (`sign` -1) the balance changes of the token transfers stored in blocks
 * `from..to`: each transfer moves its amount per id from sender to recipient (ERC-20 on id -1, one unit
 * per ERC-721 id). Used when a range is written and when a reorganization orphans blocks, so balances
 * always equal the sum of the stored transfers. The zero address is never a holder, and a balance back
 * at zero is deleted.
 *
 * Each balance carries its token's type as stamped on the transfers (storeTokensAndTypes), so that an
 * address's balances of one type are an index range.
 *
 * In the same statement it keeps what pages would otherwise aggregate: `token_holders` (per holder of a
 * token's ids: ids held above zero and their summed balance, with the balances' type),
 * `tokens.holders_count` (distinct holders above zero, any id) and each id's `token_instances.holders` and
 * `units` (holders above zero and the units they hold). All follow from each balance's value before and
 * after the change, so taking back a range restores them exactly. Every id moved has its instance row: the
 * range's instances are written before its balances, and a reorganization deletes an instance only after
 * taking its balances back.
 */
export async function applyTokenBalanceChanges(
  tx: Queryable,
  from: bigint,
  to: bigint,
  sign: 1 | -1,
): Promise<void> {
  // Every sub-statement sees the tables as they were before the statement: a holding's "before" comes
  // from token_holders and the fungible balance not changed here from token_balances.
  const emptied = await tx.query<{ token_address: Uint8Array; token_id: string; holder: Uint8Array }>(
    `WITH moves AS (
       SELECT token_address, token_id, holder, sum(delta) * $3 AS delta,
         min(token_contract_type) AS token_contract_type
       FROM (
         SELECT t.token_address, t.token_contract_type, m.token_id, side.holder, side.direction * m.amount AS delta
         FROM token_transfers t
         CROSS JOIN LATERAL unnest(
           CASE WHEN t.token_type = 'ERC-20' THEN ARRAY[-1]::numeric[] ELSE t.token_ids END,
           CASE WHEN t.token_type = 'ERC-721' THEN ARRAY[1]::numeric[] ELSE t.amounts END
         ) AS m(token_id, amount)
         CROSS JOIN LATERAL (VALUES (t.from_address, -1), (t.to_address, 1)) AS side(holder, direction)
         WHERE t.block_number BETWEEN $1 AND $2
       ) transfer_moves
       WHERE holder <> '\\x0000000000000000000000000000000000000000'::bytea
       GROUP BY token_address, token_id, holder
     ), changed AS (
       INSERT INTO token_balances (token_address, token_id, holder, value, token_contract_type)
       SELECT token_address, token_id, holder, delta, token_contract_type FROM moves
       ON CONFLICT (token_address, token_id, holder) DO UPDATE
         SET value = token_balances.value + excluded.value, token_contract_type = excluded.token_contract_type
       RETURNING token_address, token_id, holder, value, token_contract_type
     ), steps AS (
       SELECT c.token_address, c.token_id, c.holder, c.token_contract_type, c.value - m.delta AS before,
         c.value AS after
       FROM changed c
       JOIN moves m ON m.token_address = c.token_address AND m.token_id = c.token_id AND m.holder = c.holder
     ), holdings AS (
       SELECT s.token_address, s.holder, min(s.token_contract_type) AS token_contract_type,
         COALESCE(h.ids, 0) AS ids_before,
         COALESCE(h.ids_value, 0) AS ids_value_before,
         COALESCE(h.ids, 0)
           + COALESCE(sum((s.after > 0)::int - (s.before > 0)::int) FILTER (WHERE s.token_id >= 0), 0) AS ids_after,
         COALESCE(h.ids_value, 0)
           + COALESCE(sum(GREATEST(s.after, 0) - GREATEST(s.before, 0)) FILTER (WHERE s.token_id >= 0), 0) AS ids_value_after,
         COALESCE(bool_or(s.before > 0) FILTER (WHERE s.token_id < 0), f.value > 0, false) AS fungible_before,
         COALESCE(bool_or(s.after > 0) FILTER (WHERE s.token_id < 0), f.value > 0, false) AS fungible_after
       FROM steps s
       LEFT JOIN token_holders h ON h.token_address = s.token_address AND h.holder = s.holder
       LEFT JOIN token_balances f ON f.token_address = s.token_address AND f.token_id = -1 AND f.holder = s.holder
       GROUP BY s.token_address, s.holder, h.ids, h.ids_value, f.value
     ), kept AS (
       INSERT INTO token_holders (token_address, holder, ids, ids_value, token_contract_type)
       SELECT token_address, holder, ids_after, ids_value_after, token_contract_type FROM holdings
       WHERE ids_after > 0 AND (ids_after, ids_value_after) <> (ids_before, ids_value_before)
       ON CONFLICT (token_address, holder) DO UPDATE
         SET ids = excluded.ids, ids_value = excluded.ids_value, token_contract_type = excluded.token_contract_type
     ), dropped AS (
       DELETE FROM token_holders h USING holdings x
       WHERE x.ids_after = 0 AND x.ids_before > 0 AND h.token_address = x.token_address AND h.holder = x.holder
     ), instanced AS (
       UPDATE token_instances i SET holders = i.holders + c.holders, units = i.units + c.units
       FROM (
         SELECT token_address, token_id, sum((after > 0)::int - (before > 0)::int) AS holders,
           sum(GREATEST(after, 0) - GREATEST(before, 0)) AS units
         FROM steps WHERE token_id >= 0 GROUP BY token_address, token_id
       ) c
       WHERE i.token_address = c.token_address AND i.token_id = c.token_id AND (c.holders <> 0 OR c.units <> 0)
     ), counted AS (
       UPDATE tokens t SET holders_count = t.holders_count + c.change
       FROM (
         SELECT token_address,
           sum((ids_after > 0 OR fungible_after)::int - (ids_before > 0 OR fungible_before)::int) AS change
         FROM holdings GROUP BY token_address
       ) c
       WHERE t.address = c.token_address AND c.change <> 0
     )
     SELECT token_address, token_id::text AS token_id, holder FROM steps WHERE after = 0`,
    [from.toString(), to.toString(), sign],
  );
  // No zero rows: a balance that returns to zero is the same as one that never existed, whichever
  // order of ranges and reorganizations led there. (Deleted here: the statement above cannot see the
  // rows it wrote.)
  if (emptied.length === 0) return;
  await tx.query(
    `DELETE FROM token_balances b
     USING unnest($1::text[]::bytea[], $2::text[]::numeric[], $3::text[]::bytea[]) AS k(token_address, token_id, holder)
     WHERE b.token_address = k.token_address AND b.token_id = k.token_id AND b.holder = k.holder`,
    [
      emptied.map((row) => `\\x${Buffer.from(row.token_address).toString("hex")}`),
      emptied.map((row) => row.token_id),
      emptied.map((row) => `\\x${Buffer.from(row.holder).toString("hex")}`),
    ],
  );
}
