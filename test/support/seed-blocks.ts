import type { Queryable } from "../../src/db/client.ts";

/**
 * Writes blocks `from`..`to` directly, chained by parent hash (a block's hash is its number), 12 s apart,
 * with `transactionCount` each, for tests whose rows anvil cannot produce.
 */
export async function seedBlocks(
  db: Queryable,
  from: number,
  to: number,
  transactionCount = 0,
): Promise<void> {
  await db.query(
    `INSERT INTO blocks (number, hash, parent_hash, timestamp, miner, gas_limit, gas_used, extra_data, sha3_uncles,
       state_root, transactions_root, receipts_root, logs_bloom, transaction_count)
     SELECT n, decode(lpad(to_hex(n), 64, '0'), 'hex'), decode(lpad(to_hex(n - 1), 64, '0'), 'hex'),
       1700000000 + n * 12, '\\x00', 30000000, 0, '\\x', '\\x', '\\x', '\\x', '\\x', '\\x', $3
     FROM generate_series($1::int8, $2::int8) AS n`,
    [from, to, transactionCount],
  );
}
