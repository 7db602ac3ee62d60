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
 * transaction itself): the first `limit` contracts they created and the first `limit` payments they sent
 * back to the transaction's sender, in the calls' order. Each is one range of migration 041's index, which
 * holds only the calls that moved value or created a contract, by recipient: read from the transaction's
 * calls and filtered, a disperse to thousands of addresses was read whole to find none, and a transaction
 * that called its sender 100,000 times without value read them all; read unbounded, a factory's
 * transaction that created 100,000 contracts took seconds to tell ten.
 */
export async function listInnerEffects(
  db: Queryable,
  transaction: { block_number: number; index: number; from_address: string },
  limit: number,
): Promise<InnerEffectRow[]> {
  // The first `limit` calls of one kind, read in order from that kind's range of the index.
  const first = (kind: string) =>
    `(SELECT i.index, i.from_address, i.to_address, i.created_contract, i.value FROM internal_transactions i
      WHERE i.block_number = $1 AND i.transaction_index = $2 AND ${kind} AND i.index > 0 AND i.error IS NULL
      ORDER BY i.index LIMIT $4)`;
  return db.query<InnerEffectRow>(
    `SELECT ${hexColumn("from_address", "from_address")}, ${hexColumn("to_address", "to_address")},
       ${hexColumn("created_contract", "created_contract")}, value
     FROM (${first("i.to_address = $3 AND i.value > 0")}
       UNION ALL ${first("i.to_address IS NULL AND i.created_contract IS NOT NULL")}) i
     ORDER BY index`,
    [transaction.block_number, transaction.index, byteaParam(transaction.from_address), limit],
    { genericPlan: true },
  );
}
