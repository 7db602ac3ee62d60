import type { Queryable } from "../client.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition, limitSql, rangeOfOne } from "./keyset.ts";

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

/**
 * One page of withdrawals, highest index first, from the block or the address index: the block or address a
 * range of one value (`rangeOfOne`), so that no plan walks the withdrawals from the newest and checks each
 * one's address, which a plan kept for any address did for a rare one and a plan made for the address's
 * values for one busy only in recent blocks, to its last page. The plan is kept for any values, its limit
 * written in (`limitSql`). Each row's timestamp is its block's, looked up by key: joined, a block given as a
 * range is no constant the join can take, and the plan kept for any block merge-joined the blocks from the
 * newest down to it (26 ms and 87,656 blocks for block 12,345 at 10 M transactions, against 0.16 ms by key:
 * docs/performance.md, "A forty-first machine at 10 M"). A withdrawal is written and taken back with its
 * block, so the lookup always finds it.
 */
export async function listWithdrawals(
  db: Queryable,
  { where, cursor, limit }: ListWithdrawalsParameters,
): Promise<WithdrawalRow[]> {
  const keyset = keysetCondition(["w.index"], [cursor.index], "desc", 2);
  const [column, value] =
    "address" in where ? ["w.address", byteaParam(where.address)] : ["w.block_number", where.blockNumber];
  return db.query<WithdrawalRow>(
    `SELECT w.index, w.validator_index, ${hexColumn("w.address", "address")}, w.amount, w.block_number,
       (SELECT b.timestamp FROM blocks b WHERE b.number = w.block_number) AS timestamp
     FROM withdrawals w
     WHERE ${rangeOfOne(column, "$1")} AND ${keyset.sql}
     ORDER BY ${column} DESC, w.index DESC
     LIMIT ${limitSql(limit)}`,
    [value, ...keyset.params],
    { genericPlan: true, orderedScans: true },
  );
}
