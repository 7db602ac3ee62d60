import type { Queryable } from "../client.ts";
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
 * Value sent elsewhere (a disperse to thousands of addresses) is not read.
 */
export async function listInnerEffects(
  db: Queryable,
  transaction: { block_number: number; index: number; from_address: string },
): Promise<InnerEffectRow[]> {
  return db.query<InnerEffectRow>(
    `SELECT ${hexColumn("from_address", "from_address")}, ${hexColumn("to_address", "to_address")},
       ${hexColumn("created_contract", "created_contract")}, value
     FROM internal_transactions
     WHERE block_number = $1 AND transaction_index = $2 AND index > 0 AND error IS NULL
       AND ((value > 0 AND to_address = $3) OR created_contract IS NOT NULL)
     ORDER BY index`,
    [transaction.block_number, transaction.index, byteaParam(transaction.from_address)],
  );
}
