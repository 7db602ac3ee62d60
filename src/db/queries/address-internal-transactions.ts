import type { Queryable } from "../client.ts";
import { type DirectionFilter, receivedOrCreatedBits } from "../direction.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition } from "./keyset.ts";

export type InternalTransactionRow = {
  block_number: number;
  transaction_index: number;
  index: number;
  block_index: number;
  transaction_hash: string;
  type: string;
  from_address: string;
  to_address: string | null;
  created_contract: string | null;
  value: string;
  gas: string | null;
  error: string | null;
  timestamp: number;
};

export type ListAddressInternalTransactionsParameters = {
  address: string;
  /** `from`: frames the address made; `to`: frames it received or that created it. */
  filter?: DirectionFilter;
  cursor: { block_number?: number | null; transaction_index?: number | null; index?: number | null };
  limit: number;
};

/**
 * One page of the internal transactions an address takes part in, newest first, from the
 * address→internal-transaction index, then the page's rows. Top-level calls are not in that index: they repeat the transaction.
 */
export async function listAddressInternalTransactions(
  db: Queryable,
  { address, filter, cursor, limit }: ListAddressInternalTransactionsParameters,
): Promise<InternalTransactionRow[]> {
  const columns = ["a.block_number", "a.transaction_index", "a.index"];
  const keyset = keysetCondition(
    columns,
    [cursor.block_number, cursor.transaction_index, cursor.index],
    "desc",
    3,
  );
  const direction = filter ? `AND a.direction & ${receivedOrCreatedBits(filter)} <> 0` : "";
  const ordering = columns.map((column) => `${column} DESC`).join(", ");
  // The page's keys first, then its rows (see listAddressTransactions).
  return db.query<InternalTransactionRow>(
    `WITH a AS MATERIALIZED (
       SELECT a.block_number, a.transaction_index, a.index
       FROM address_internal_transactions a
       WHERE a.address = $1 AND ${keyset.sql} ${direction}
       ORDER BY ${ordering}
       LIMIT $2
     )
     SELECT i.block_number, i.transaction_index, i.index, i.block_index,
       ${hexColumn("t.hash", "transaction_hash")}, i.type, ${hexColumn("i.from_address", "from_address")},
       ${hexColumn("i.to_address", "to_address")}, ${hexColumn("i.created_contract", "created_contract")},
       i.value, i.gas, i.error, b.timestamp
     FROM a
     JOIN internal_transactions i
       ON i.block_number = a.block_number AND i.transaction_index = a.transaction_index AND i.index = a.index
     JOIN transactions t ON t.block_number = a.block_number AND t.index = a.transaction_index
     JOIN blocks b ON b.number = a.block_number
     ORDER BY ${ordering}`,
    [byteaParam(address), limit, ...keyset.params],
    { orderedScans: true },
  );
}
