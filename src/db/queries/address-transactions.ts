import {
  addressSuffix,
  addressTakesPartSql,
  cursorPosition,
  positionPartsSql,
  transactionPositionSql,
} from "../address-transaction-keys.ts";
import type { Queryable } from "../client.ts";
import { type DirectionFilter, transactionDirections, transactionDirectionsFor } from "../direction.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn, keysetCondition } from "./keyset.ts";

export type TransactionSort = "block_number" | "value" | "fee";

export type AddressTransactionsCursor = {
  block_number?: number | null;
  index?: number | null;
  value?: string | null;
  fee?: string | null;
};

export type ListAddressTransactionsParameters = {
  address: string;
  /** `from`: sent by the address; `to`: received by it or creating it. */
  filter?: DirectionFilter;
  sort: TransactionSort;
  order: "asc" | "desc";
  cursor: AddressTransactionsCursor;
  limit: number;
};

export type TransactionRow = {
  hash: string;
  block_number: number;
  block_hash: string;
  index: number;
  from_address: string;
  to_address: string | null;
  created_contract: string | null;
  value: string;
  nonce: number;
  type: number;
  gas_limit: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  input: string;
  status: number | null;
  gas_used: string;
  effective_gas_price: string | null;
  fee: string;
  timestamp: number;
  base_fee_per_gas: string | null;
  error: string | null;
  has_error_in_internal_transactions: boolean | null;
  /** What the reverted top-level call returned, to decode the revert reason; null unless it reverted. */
  revert_output: string | null;
  /** The transaction created a contract that is a token. */
  created_token: boolean;
  /** Its logs' indexes in the block (see `TransactionLogRange`). */
  first_log_index: number | null;
  log_count: number;
};

const sortColumns: Record<TransactionSort, string[]> = {
  block_number: ["a.position"],
  value: ["a.value", "a.position"],
  fee: ["a.fee", "a.position"],
};

const position = positionPartsSql("a.position");

/** Joins the transaction of the `address_transactions` row `a` as `t`. */
const joinTransaction = `JOIN transactions t ON t.block_number = ${position.blockNumber} AND t.index = ${position.index}`;

/** Columns of a transaction as the API renders it; `t` is transactions, `b` its block. */
export const transactionColumns = `
  ${hexColumn("t.hash", "hash")}, t.block_number, ${hexColumn("b.hash", "block_hash")}, t.index,
  ${hexColumn("t.from_address", "from_address")}, ${hexColumn("t.to_address", "to_address")},
  ${hexColumn("t.created_contract", "created_contract")}, t.value, t.nonce, t.type, t.gas_limit, t.gas_price,
  t.max_fee_per_gas, t.max_priority_fee_per_gas, ${hexColumn("t.input", "input")}, t.status, t.gas_used,
  t.effective_gas_price, t.gas_used * COALESCE(t.effective_gas_price, t.gas_price, 0) AS fee,
  b.timestamp, b.base_fee_per_gas, t.error, t.has_error_in_internal_transactions,
  ${hexColumn("t.revert_output", "revert_output")}, t.first_log_index, t.log_count,
  t.created_contract IS NOT NULL AND EXISTS (SELECT 1 FROM tokens k WHERE k.address = t.created_contract) AS created_token`;

/**
 * One page of the transactions an address takes part in, in the requested order, from the
 * address→transaction indexes alone (one index range scan per direction the filter keeps, whatever the
 * sort), then the page's rows.
 */
export async function listAddressTransactions(
  db: Queryable,
  parameters: ListAddressTransactionsParameters,
): Promise<TransactionRow[]> {
  const page = await readPage(db, parameters, { checkEachRow: false });
  // The index is keyed by the address's last 13 bytes: a row of another address ending in them is in the
  // same ranges. Such a page is read again, each row checked against its transaction as the ranges are
  // walked, a join the common page does only for its own rows.
  const rows = page.every((row) => row.address_takes_part)
    ? page
    : await readPage(db, parameters, { checkEachRow: true });
  return rows.map(({ address_takes_part: _, ...row }) => row);
}

async function readPage(
  db: Queryable,
  { address, filter, sort, order, cursor, limit }: ListAddressTransactionsParameters,
  { checkEachRow }: { checkEachRow: boolean },
): Promise<(TransactionRow & { address_takes_part: boolean })[]> {
  const takesPart = addressTakesPartSql("a", "t", "$3");
  const { ranges, ordering, params } =
    sort !== "block_number" && order === "asc"
      ? tiesNewestFirst(sort, cursor, checkEachRow)
      : oneDirection(sort, order, cursor, checkEachRow);
  // The page's keys first, then its rows: joined in one statement, the planner may merge-join blocks or
  // transactions and walk them from the newest down to the cursor, a cost that grows with the depth.
  return db.query<TransactionRow & { address_takes_part: boolean }>(
    `WITH page AS MATERIALIZED (
       SELECT * FROM (${transactionDirectionsFor(filter).map(ranges).join(" UNION ALL ")}) a
       ORDER BY ${ordering}
       LIMIT $2
     )
     SELECT ${transactionColumns}, ${takesPart} AS address_takes_part
     FROM page a
     ${joinTransaction}
     JOIN blocks b ON b.number = t.block_number
     ORDER BY ${ordering}`,
    [byteaParam(addressSuffix(address)), limit, byteaParam(address), ...params],
    { orderedScans: true },
  );
}

/** How a page reads its keys: one statement per direction the filter keeps, the order, and their parameters. */
type PageKeys = { ranges: (direction: number) => string; ordering: string; params: unknown[] };

/** The keys of `address_transactions` a page reads, with its transaction `t` where each row is checked. */
function keysFrom(checkEachRow: boolean, direction: number, condition: string): string {
  return `SELECT a.position, a.direction, a.value, a.fee
    FROM address_transactions a ${checkEachRow ? joinTransaction : ""}
    WHERE a.address_suffix = $1 AND a.direction = ${direction} AND ${condition}
      ${checkEachRow ? `AND ${addressTakesPartSql("a", "t", "$3")}` : ""}`;
}

/**
 * Every column in the order asked (by position; by value or fee from the largest, ties newest first): each
 * direction is a range of the index keyed (address, direction, sort key), and the page merges the first
 * rows of each range, so a direction the address rarely takes never walks the other one's rows.
 */
function oneDirection(
  sort: TransactionSort,
  order: "asc" | "desc",
  cursor: AddressTransactionsCursor,
  checkEachRow: boolean,
): PageKeys {
  const columns = sortColumns[sort];
  const resumeAt = cursorPosition(cursor.block_number, cursor.index, order)?.toString();
  const values = { block_number: [resumeAt], value: [cursor.value, resumeAt], fee: [cursor.fee, resumeAt] }[
    sort
  ];
  const keyset = keysetCondition(columns, values, order, 4);
  const ordering = columns.map((column) => `${column} ${order}`).join(", ");
  return {
    ranges: (direction) => `(${keysFrom(checkEachRow, direction, keyset.sql)} ORDER BY ${ordering} LIMIT $2)`,
    ordering,
    params: keyset.params,
  };
}

/**
 * By value or fee from the smallest, ties newest first as Blockscout breaks them (its default order, block
 * and index descending, after the sort key). The index holds a key's transactions oldest first, so each
 * direction reads three ranges, none longer than a page whatever the number of ties: the cursor's own key
 * below its position (newest first), the keys above it in the index's order, of which every key but the last
 * is whole, and that last key again, newest first.
 */
function tiesNewestFirst(
  sort: Exclude<TransactionSort, "block_number">,
  cursor: AddressTransactionsCursor,
  checkEachRow: boolean,
): PageKeys {
  const key = `a.${sort}`;
  const sent = cursor[sort];
  const resumeAt = sent == null ? null : cursorPosition(cursor.block_number, cursor.index, "desc");
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value) + 3}`;
  const after = sent == null ? "TRUE" : `${key} > ${bind(sent)}`;
  const rest = resumeAt === null ? null : `${key} = $4 AND a.position < ${bind(resumeAt.toString())}`;
  const newestFirst = "ORDER BY a.position DESC LIMIT $2";
  return {
    ranges: (direction) => `(
      WITH above AS MATERIALIZED (
        ${keysFrom(checkEachRow, direction, after)} ORDER BY ${key}, a.position LIMIT $2
      )
      SELECT * FROM above WHERE ${sort} < (SELECT max(${sort}) FROM above)
      UNION ALL (${keysFrom(checkEachRow, direction, `${key} = (SELECT max(${sort}) FROM above)`)} ${newestFirst})
      ${rest === null ? "" : `UNION ALL (${keysFrom(checkEachRow, direction, rest)} ${newestFirst})`})`,
    ordering: `${key} ASC, a.position DESC`,
    params,
  };
}

/** Every direction, so that a lookup by position probes each direction's key range of the index. */
const anyDirection = transactionDirections.join(", ");

/**
 * The cursor values of one transaction of the address, to resume after it when a client sent only its
 * hash, or only its position (`block_number` and `index`) for a sort by value or fee.
 */
export async function findAddressTransactionCursor(
  db: Queryable,
  {
    address,
    transaction,
  }: { address: string; transaction: { hash: string } | { block_number: number; index: number } },
): Promise<Required<AddressTransactionsCursor> | null> {
  const [row] = await db.query<Required<AddressTransactionsCursor>>(
    `SELECT t.block_number, t.index, a.value, a.fee
     FROM transactions t
     JOIN address_transactions a ON a.address_suffix = $1 AND a.direction IN (${anyDirection})
       AND a.position = ${transactionPositionSql("t.block_number", "t.index")}
     WHERE ${"hash" in transaction ? "t.hash = $3" : "t.block_number = $3 AND t.index = $4"}
       AND ${addressTakesPartSql("a", "t", "$2")}`,
    [
      byteaParam(addressSuffix(address)),
      byteaParam(address),
      ...("hash" in transaction
        ? [byteaParam(transaction.hash)]
        : [transaction.block_number, transaction.index]),
    ],
  );
  return row ?? null;
}
