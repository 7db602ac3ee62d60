import type { Queryable } from "./client.ts";
import { applyTokenBalanceChanges } from "./token-balances.ts";

/**
 * Deletes every row derived from blocks above `blockNumber` (orphaned by a reorganization), inside the
 * caller's transaction. Link tables are reached through their orphaned parents' addresses so that each
 * delete is an index lookup; addresses go when no kept block saw them.
 */
export async function deleteAbove(tx: Queryable, blockNumber: bigint): Promise<void> {
  const above = [blockNumber.toString()];
  await tx.query(
    `DELETE FROM addresses WHERE first_seen_block > $1 AND hash IN (
       SELECT from_address FROM transactions WHERE block_number > $1
       UNION SELECT to_address FROM transactions WHERE block_number > $1
       UNION SELECT created_contract FROM transactions WHERE block_number > $1
       UNION SELECT address FROM logs WHERE block_number > $1
       UNION SELECT miner FROM blocks WHERE number > $1
       UNION SELECT address FROM withdrawals WHERE block_number > $1
       UNION SELECT to_address FROM internal_transactions WHERE block_number > $1
       UNION SELECT created_contract FROM internal_transactions WHERE block_number > $1
       UNION SELECT from_address FROM token_transfers WHERE block_number > $1
       UNION SELECT to_address FROM token_transfers WHERE block_number > $1)`,
    above,
  );
  await tx.query(
    `DELETE FROM address_transactions a USING transactions t
     WHERE t.block_number > $1 AND a.address IN (t.from_address, t.to_address, t.created_contract)
       AND a.block_number = t.block_number AND a.transaction_index = t.index`,
    above,
  );
  await tx.query(
    `DELETE FROM address_internal_transactions a USING internal_transactions i
     WHERE i.block_number > $1 AND a.address IN (i.from_address, i.to_address, i.created_contract)
       AND a.block_number = i.block_number AND a.transaction_index = i.transaction_index AND a.index = i.index`,
    above,
  );
  await applyTokenBalanceChanges(tx, blockNumber + 1n, 9_223_372_036_854_775_807n, -1);
  await tx.query("DELETE FROM token_instances WHERE first_seen_block > $1", above);
  await tx.query("DELETE FROM tokens WHERE first_seen_block > $1", above);
  // A supply read in an orphaned block is stale; the reorganization reads it again (see attachTokens).
  await tx.query("UPDATE tokens SET total_supply = NULL, read_at_block = -1 WHERE read_at_block > $1", above);
  await tx.query(
    `DELETE FROM address_token_transfers a USING token_transfers t
     WHERE t.block_number > $1 AND a.address IN (t.from_address, t.to_address)
       AND a.block_number = t.block_number AND a.log_index = t.log_index`,
    above,
  );
  for (const [table, column] of [
    ["proxies", "block_number"],
    ["user_operations", "block_number"],
    ["token_transfers", "block_number"],
    ["internal_transactions", "block_number"],
    ["logs", "block_number"],
    ["withdrawals", "block_number"],
    ["transactions", "block_number"],
    ["blocks", "number"],
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE ${column} > $1`, above);
  }
}
