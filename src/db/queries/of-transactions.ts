/** A transaction by position. */
export type TransactionPosition = { block_number: number; index: number };

/** The key of a transaction by position, as the maps of a page's transactions use it. */
export function transactionKey(blockNumber: number, index: number): string {
  return `${blockNumber}/${index}`;
}

/**
 * Positions are matched as one number, `block_number × 2^20 + transaction_index`: no block holds a
 * million transactions (30 M gas holds at most 1,428), and the block numbers left stay far beyond any
 * chain's.
 */
const indexSpan = 2 ** 20;

/**
 * The SQL condition that keeps the rows of `alias` (a table keyed by block number, with a
 * `transaction_index` column) belonging to `transactions`, binding its parameters with `bind`. Each
 * distinct block is one range of the table's primary key, and its rows are looked up in a hash of the
 * positions. Matched pair by pair, the planner scanned a block's rows once per transaction of the page
 * (50 transactions of one block read its rows 50 times); checked with `= ANY`, each row was compared with
 * every position.
 */
export function ofTransactions(
  alias: string,
  transactions: readonly TransactionPosition[],
  bind: (value: unknown) => string,
): string {
  const blocks = bind([...new Set(transactions.map((key) => key.block_number))]);
  const positions = bind(transactions.map((key) => key.block_number * indexSpan + key.index));
  return `${alias}.block_number = ANY(${blocks}::int8[])
    AND ${alias}.block_number * ${indexSpan} + ${alias}.transaction_index IN (SELECT unnest(${positions}::int8[]))`;
}
