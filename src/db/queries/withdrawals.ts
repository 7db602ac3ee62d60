import type { Queryable } from "../client.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition } from "./keyset.ts";

export type WithdrawalRow = {
  index: number;
  validator_index: number;
  address: string;
  amount: string;
  block_number: number;
  timestamp: number;
};

export type ListWithdrawalsParameters = {
  /** Withdrawals of one block, or received by one address. */
  where: { blockNumber: number } | { address: string };
  cursor: { index?: number | null };
  limit: number;
};

/** One page of withdrawals, highest index first, from the block or the address index. */
export async function listWithdrawals(
  db: Queryable,
  { where, cursor, limit }: ListWithdrawalsParameters,
): Promise<WithdrawalRow[]> {
  const keyset = keysetCondition(["w.index"], [cursor.index], "desc", 3);
  const [column, value] =
    "address" in where ? ["w.address", byteaParam(where.address)] : ["w.block_number", where.blockNumber];
  return db.query<WithdrawalRow>(
    `SELECT w.index, w.validator_index, ${hexColumn("w.address", "address")}, w.amount, w.block_number, b.timestamp
     FROM withdrawals w JOIN blocks b ON b.number = w.block_number
     WHERE ${column} = $1 AND ${keyset.sql}
     ORDER BY w.index DESC
     LIMIT $2`,
    [value, limit, ...keyset.params],
    { orderedScans: true },
  );
}
