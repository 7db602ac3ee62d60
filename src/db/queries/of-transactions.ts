/** Where a transaction's logs are: `log_count` log indexes of its block from `first_log_index` on. */
export type TransactionLogRange = {
  block_number: number;
  /** Null for a transaction without logs. */
  first_log_index: number | null;
  log_count: number;
};

/** The key of a transaction by position, as the maps of a page's transactions use it. */
export function transactionKey(blockNumber: number, index: number): string {
  return `${blockNumber}/${index}`;
}

/** Which of a range's rows to read: all of them without either. */
export type RowsOfTransactionsOptions = {
  /** Only the first that many rows of each range, in key order. */
  firstRows?: number | undefined;
  /**
   * Only the rows meeting one of these conditions (SQL on the alias), each condition read on its own: one an
   * index holds is that index's range for each transaction, not every row of the transaction filtered.
   */
  matching?: readonly string[];
};

/**
 * The rows of `table` (keyed by block number and log index, as logs and token transfers are) that
 * belong to `transactions`, as a FROM item named `alias`: one range of their key per transaction,
 * binding its parameters with `bind`, narrowed by `options`. Null when none of them has a log: there is
 * nothing to read. Matched by block, a page read every row of its transactions' blocks, a cost that grew
 * with the size of the blocks rather than with the page.
 */
export function rowsOfTransactions(
  table: string,
  alias: string,
  transactions: readonly TransactionLogRange[],
  bind: (value: unknown) => string,
  { firstRows, matching }: RowsOfTransactionsOptions = {},
): string | null {
  const ranges = transactions.flatMap(({ block_number, first_log_index, log_count }) =>
    first_log_index === null || log_count === 0 ? [] : [{ block_number, first_log_index, log_count }],
  );
  if (ranges.length === 0) return null;
  const blocks = bind(ranges.map((range) => range.block_number));
  const firsts = bind(ranges.map((range) => range.first_log_index));
  const ends = bind(ranges.map((range) => range.first_log_index + range.log_count));
  const rangeLimit =
    firstRows === undefined
      ? "LIMIT r.end_log_index - r.first_log_index"
      : `ORDER BY ${alias}.log_index LIMIT least(r.end_log_index - r.first_log_index, ${bind(firstRows)}::int)`;
  const ofRange = (
    condition: string,
  ) => `SELECT * FROM ${table} ${alias} WHERE ${alias}.block_number = r.block_number
       AND ${alias}.log_index >= r.first_log_index AND ${alias}.log_index < r.end_log_index${condition}
       ${rangeLimit}`;
  // Each range is read on its own, for its transaction (a LATERAL subquery that its limit, the range's
  // length, keeps from being merged into a join). Joined to the ranges, the table can be merged with them in
  // key order: a plan kept for any values, which cannot see how few ranges there are, walked every transfer
  // from the oldest up to a new transaction's block. A row meeting two conditions is returned once.
  const read =
    matching === undefined
      ? ofRange("")
      : matching.map((condition) => `(${ofRange(` AND (${condition})`)})`).join(" UNION ");
  return `(SELECT ${alias}.* FROM unnest(${blocks}::int8[], ${firsts}::int4[], ${ends}::int4[]) AS r(block_number, first_log_index, end_log_index)
     CROSS JOIN LATERAL (${read}) ${alias}) ${alias}`;
}
