import type { Queryable } from "../client.ts";
import { receivedOrCreatedBits } from "../direction.ts";
import { byteaParam } from "../table-rows.ts";
import { type TransactionRow, transactionColumns } from "./address-transactions.ts";
import { hexColumn } from "./keyset.ts";

/** One transaction by hash, in the columns the API renders, or null when it is not indexed. */
export async function findTransaction(db: Queryable, hash: string): Promise<TransactionRow | null> {
  const [row] = await db.query<TransactionRow>(
    `SELECT ${transactionColumns}
     FROM transactions t JOIN blocks b ON b.number = t.block_number
     WHERE t.hash = $1`,
    [byteaParam(hash)],
  );
  return row ?? null;
}

/** An inner call that created a contract or sent value to the transaction's sender, lowercase hex. */
export type InnerEffectRow = {
  from_address: string;
  to_address: string | null;
  created_contract: string | null;
  value: string;
};

/**
 * The inner calls of a transaction that a summary tells, and that did not fail (the top-level call is the
 * transaction itself): the contracts they created and the value they sent back to the transaction's sender.
 * Each is read from an index that holds only its kind: the payments among the sender's received calls, the
 * creations from migration 037's index of them. Read from the transaction's calls and filtered, a disperse
 * to thousands of addresses was read whole to find none.
 */
export async function listInnerEffects(
  db: Queryable,
  transaction: { block_number: number; index: number; from_address: string },
): Promise<InnerEffectRow[]> {
  const columns = "i.index, i.from_address, i.to_address, i.created_contract, i.value";
  const ofTransaction =
    "i.block_number = $1 AND i.transaction_index = $2 AND i.index > 0 AND i.error IS NULL";
  return db.query<InnerEffectRow>(
    `SELECT ${hexColumn("from_address", "from_address")}, ${hexColumn("to_address", "to_address")},
       ${hexColumn("created_contract", "created_contract")}, value
     FROM (
       SELECT ${columns} FROM address_internal_transactions a
       JOIN internal_transactions i ON i.block_number = a.block_number
         AND i.transaction_index = a.transaction_index AND i.index = a.index
       WHERE a.address = $3 AND a.block_number = $1 AND a.transaction_index = $2 AND a.direction & ${receivedOrCreatedBits("to")} <> 0
         AND ${ofTransaction} AND i.value > 0 AND i.to_address = $3
       UNION
       SELECT ${columns} FROM internal_transactions i WHERE ${ofTransaction} AND i.created_contract IS NOT NULL
     ) i
     ORDER BY index`,
    [transaction.block_number, transaction.index, byteaParam(transaction.from_address)],
    { genericPlan: true },
  );
}
