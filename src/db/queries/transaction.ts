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

export type InternalValueTransferRow = { from_address: string; to_address: string; value: string };

/** The inner calls of a transaction that moved value (the top-level call is the transaction itself). */
export async function listInternalValueTransfers(
  db: Queryable,
  transaction: { block_number: number; index: number },
): Promise<InternalValueTransferRow[]> {
  return db.query<InternalValueTransferRow>(
    `SELECT ${hexColumn("from_address", "from_address")}, ${hexColumn("COALESCE(to_address, created_contract)", "to_address")}, value
     FROM internal_transactions
     WHERE block_number = $1 AND transaction_index = $2 AND index > 0 AND value > 0 AND error IS NULL
     ORDER BY index`,
    [transaction.block_number, transaction.index],
  );
}
