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
 * transaction itself): the first `limit` contracts they created and the first `limit` payments they sent
 * back to the transaction's sender. Each is read from an index that holds only its kind, in the calls'
 * order: the payments among the sender's received calls, the creations from migration 037's index of them.
 * Read from the transaction's calls and filtered, a disperse to thousands of addresses was read whole to find
 * none; read unbounded, a factory's transaction that created 100,000 contracts took seconds to tell ten.
 */
export async function listInnerEffects(
  db: Queryable,
  transaction: { block_number: number; index: number; from_address: string },
  limit: number,
): Promise<InnerEffectRow[]> {
  const columns = "i.index, i.from_address, i.to_address, i.created_contract, i.value";
  const succeeded = "i.error IS NULL";
  // Each payment's frame is looked up by its key in a LATERAL subquery the planner keeps apart (its LIMIT):
  // joined plainly, a merge join could walk the transaction's calls in order until the payments came.
  return db.query<InnerEffectRow>(
    `SELECT ${hexColumn("from_address", "from_address")}, ${hexColumn("to_address", "to_address")},
       ${hexColumn("created_contract", "created_contract")}, value
     FROM (
       (SELECT ${columns} FROM address_internal_transactions a
        CROSS JOIN LATERAL (
          SELECT * FROM internal_transactions i
          WHERE i.block_number = a.block_number AND i.transaction_index = a.transaction_index AND i.index = a.index
            AND ${succeeded} AND i.value > 0 AND i.to_address = $3
          LIMIT 1) i
        WHERE a.address = $3 AND a.block_number = $1 AND a.transaction_index = $2 AND a.index > 0
          AND a.direction & ${receivedOrCreatedBits("to")} <> 0
        ORDER BY a.index LIMIT $4)
       UNION
       (SELECT ${columns} FROM internal_transactions i
        WHERE i.block_number = $1 AND i.transaction_index = $2 AND i.index > 0 AND ${succeeded}
          AND i.created_contract IS NOT NULL
        ORDER BY i.index LIMIT $4)
     ) i
     ORDER BY index`,
    [transaction.block_number, transaction.index, byteaParam(transaction.from_address), limit],
    { genericPlan: true },
  );
}
