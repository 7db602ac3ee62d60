import { addressSuffixSql, transactionPositionSql } from "./address-transaction-keys.ts";
import type { Queryable } from "./client.ts";
import { transactionDirections, transferDirections } from "./direction.ts";
import {
  type ColumnType,
  copyRows,
  createTableRows,
  insertRows,
  int8Max,
  type TableRows,
} from "./table-rows.ts";
import { applyTokenBalanceChanges } from "./token-balances.ts";
import { storeTokensAndTypes, takeBackPromotions } from "./token-types.ts";

/**
 * How a reorganization takes back a table's rows of the blocks above `$1`:
 * - `delete`: one statement with `$1`;
 * - `run`: a step of its own (balances are taken back, not deleted);
 * - `takenBackWith`: another table's step restores this one (a counter it maintains);
 * - `null`: the table is not derived from blocks (configuration, operator input, progress).
 */
export type Reorganization =
  | { delete: string }
  | { run: (tx: Queryable, above: bigint) => Promise<void> }
  | { takenBackWith: string }
  | null;

export type TableDefinition<Columns extends Record<string, ColumnType> = Record<string, ColumnType>> = {
  name: string;
  /** The primary key, in its order: the fingerprint compares rows in it. */
  key: readonly string[];
  /** The columns a range carries rows for, with their SQL types; absent when no range hands rows over. */
  columns?: Columns;
  /**
   * Writing a range's rows: COPY when absent (a range's rows are new: the writer checked its place in
   * the chain), an insert with a conflict clause for rows that may already be stored, or a step of its own.
   */
  write?:
    | { onConflict: string }
    | { run: (tx: Queryable, rows: RangeRows, range: { from: bigint; to: bigint }) => Promise<void> };
  reorganization: Reorganization;
  /**
   * Columns whose values depend on when something ran or how the chain was cut into ranges, not on the
   * chain (timestamps, fetched documents, the block a token's state was read at).
   */
  volatile?: readonly string[];
};

function defineTable<const Columns extends Record<string, ColumnType>>(
  definition: TableDefinition<Columns> & { columns: Columns },
): TableDefinition<Columns> & { columns: Columns };
function defineTable(definition: TableDefinition<never> & { columns?: never }): TableDefinition<never>;
function defineTable(definition: TableDefinition) {
  return definition;
}

/** Where an address index table's rows come from, and their keys ({@link deleteAddressLinks}). */
export type AddressLinks = {
  table: string;
  /** The table the links point to, with a `block_number` column; `s` in `keyOf`. */
  source: string;
  /** The columns of `source` holding the addresses linked; null ones are skipped. */
  parties: readonly string[];
  /** The values the `direction` key column can hold, when the key has one. */
  directions?: readonly number[];
  /** SQL of each primary-key column of a link, from a party's address expression and a direction. */
  keyOf: (party: string, direction: string) => Record<string, string>;
};

/**
 * The address index tables, each a link per party of a row of its source: a reorganization deletes the links
 * of the orphaned rows, and the tests derive every link again from its source to compare.
 */
export const addressLinks = {
  transactions: {
    table: "address_transactions",
    source: "transactions",
    parties: ["from_address", "to_address", "created_contract"],
    directions: transactionDirections,
    keyOf: (party, direction) => ({
      address_suffix: addressSuffixSql(party),
      direction,
      position: transactionPositionSql("s.block_number", "s.index"),
    }),
  },
  internalTransactions: {
    table: "address_internal_transactions",
    source: "internal_transactions",
    parties: ["from_address", "to_address", "created_contract"],
    keyOf: (party) => ({
      address: party,
      block_number: "s.block_number",
      transaction_index: "s.transaction_index",
      index: "s.index",
    }),
  },
  tokenTransfers: {
    table: "address_token_transfers",
    source: "token_transfers",
    parties: ["from_address", "to_address"],
    directions: transferDirections,
    keyOf: (party, direction) => ({
      address: party,
      direction,
      block_number: "s.block_number",
      log_index: "s.log_index",
    }),
  },
} as const satisfies Record<string, AddressLinks>;

/**
 * A reorganization's delete of an address index table's rows, found from the orphaned rows of their
 * source above `$1`: the full key of every row that may exist (each party, in each direction), so that
 * each is one primary-key probe. Joined on the address alone, the planner walked each party's whole key
 * range (a 1-block reorganization took 89 s on the 10 M benchmark dataset) or read the whole table.
 */
function deleteAddressLinks({ table, source, parties, directions, keyOf }: AddressLinks): string {
  const everyDirection = directions
    ? `CROSS JOIN (VALUES ${directions.map((direction) => `(${direction}::smallint)`).join(", ")}) d(direction)`
    : "";
  const key = keyOf("p.address", "d.direction");
  return `DELETE FROM ${table} WHERE (${Object.keys(key).join(", ")}) IN (
    SELECT ${Object.values(key).join(", ")}
    FROM ${source} s
    CROSS JOIN LATERAL (VALUES ${parties.map((party) => `(s.${party})`).join(", ")}) p(address)
    ${everyDirection}
    WHERE s.block_number > $1 AND p.address IS NOT NULL)`;
}

/**
 * How many of a large batch's first ids and amounts `token_transfer_heads` keeps (migration 043 writes the
 * same number): more than a page shows of one transfer (51 rows) and than a transaction list previews (11).
 */
export const batchHeadItems = 64;

/**
 * Every table of the schema, defined once, in the order a range is written (and the reverse of the
 * order a reorganization takes it back): a link or counter follows what it is derived from. The writer,
 * the reorganization and the test fingerprint are all derived from these entries.
 */
export const tables = {
  blocks: defineTable({
    name: "blocks",
    key: ["number"],
    columns: {
      number: "int8",
      hash: "bytea",
      parent_hash: "bytea",
      timestamp: "int8",
      miner: "bytea",
      gas_limit: "numeric",
      gas_used: "numeric",
      base_fee_per_gas: "numeric",
      difficulty: "numeric",
      total_difficulty: "numeric",
      size: "int8",
      nonce: "bytea",
      extra_data: "bytea",
      mix_hash: "bytea",
      sha3_uncles: "bytea",
      state_root: "bytea",
      transactions_root: "bytea",
      receipts_root: "bytea",
      logs_bloom: "bytea",
      blob_gas_used: "numeric",
      excess_blob_gas: "numeric",
      parent_beacon_block_root: "bytea",
      withdrawals_root: "bytea",
      transaction_count: "int4",
      traced: "bool",
    },
    reorganization: { delete: "DELETE FROM blocks WHERE number > $1" },
  }),
  transactions: defineTable({
    name: "transactions",
    key: ["block_number", "index"],
    columns: {
      hash: "bytea",
      block_number: "int8",
      index: "int4",
      from_address: "bytea",
      to_address: "bytea",
      created_contract: "bytea",
      value: "numeric",
      nonce: "int8",
      type: "int2",
      gas_limit: "numeric",
      gas_price: "numeric",
      max_fee_per_gas: "numeric",
      max_priority_fee_per_gas: "numeric",
      max_fee_per_blob_gas: "numeric",
      blob_versioned_hashes: "bytea",
      input: "bytea",
      status: "int2",
      gas_used: "numeric",
      effective_gas_price: "numeric",
      blob_gas_used: "numeric",
      blob_gas_price: "numeric",
      root: "bytea",
      error: "text",
      has_error_in_internal_transactions: "bool",
      revert_output: "bytea",
      first_log_index: "int4",
      log_count: "int4",
    },
    reorganization: { delete: "DELETE FROM transactions WHERE block_number > $1" },
  }),
  addressTransactions: defineTable({
    name: "address_transactions",
    key: ["address_suffix", "direction", "position"],
    columns: {
      address_suffix: "bytea",
      direction: "int2",
      position: "int8",
      value: "numeric",
      fee: "numeric",
    },
    reorganization: {
      delete: deleteAddressLinks(addressLinks.transactions),
    },
  }),
  logs: defineTable({
    name: "logs",
    key: ["block_number", "log_index"],
    columns: {
      block_number: "int8",
      log_index: "int4",
      transaction_index: "int4",
      address: "bytea",
      topic0: "bytea",
      topic1: "bytea",
      topic2: "bytea",
      topic3: "bytea",
      data: "bytea",
    },
    reorganization: { delete: "DELETE FROM logs WHERE block_number > $1" },
  }),
  internalTransactions: defineTable({
    name: "internal_transactions",
    key: ["block_number", "transaction_index", "index"],
    columns: {
      block_number: "int8",
      transaction_index: "int4",
      index: "int4",
      block_index: "int4",
      type: "text",
      from_address: "bytea",
      to_address: "bytea",
      created_contract: "bytea",
      value: "numeric",
      gas: "numeric",
      gas_used: "numeric",
      input: "bytea",
      output: "bytea",
      error: "text",
      trace_address: "int4[]",
    },
    reorganization: { delete: "DELETE FROM internal_transactions WHERE block_number > $1" },
  }),
  addressInternalTransactions: defineTable({
    name: "address_internal_transactions",
    key: ["address", "block_number", "transaction_index", "index"],
    columns: {
      address: "bytea",
      block_number: "int8",
      transaction_index: "int4",
      index: "int4",
      direction: "int2",
    },
    reorganization: {
      delete: deleteAddressLinks(addressLinks.internalTransactions),
    },
  }),
  withdrawals: defineTable({
    name: "withdrawals",
    key: ["index"],
    columns: {
      index: "int8",
      block_number: "int8",
      validator_index: "int8",
      address: "bytea",
      amount: "numeric",
    },
    reorganization: { delete: "DELETE FROM withdrawals WHERE block_number > $1" },
  }),
  proxies: defineTable({
    name: "proxies",
    key: ["address", "block_number"],
    columns: {
      address: "bytea",
      block_number: "int8",
      proxy_type: "text",
      implementation: "bytea",
      beacon: "bytea",
    },
    reorganization: { delete: "DELETE FROM proxies WHERE block_number > $1" },
  }),
  // Filled by the indexer once name, symbol, decimals and supply are read from the node.
  tokens: defineTable({
    name: "tokens",
    key: ["address"],
    columns: {
      address: "bytea",
      type: "text",
      name: "text",
      symbol: "text",
      decimals: "int2",
      total_supply: "numeric",
      first_seen_block: "int8",
      read_at_block: "int8",
      promoted_at_block: "int8",
      type_before_promotion: "text",
    },
    write: { run: (tx, rows) => storeTokensAndTypes(tx, rows) },
    // State is read at the end of a range (the indexer's attachTokens).
    volatile: ["read_at_block"],
    // A supply read in an orphaned block is stale: the reorganization reads it again at the end of the
    // range that replaces the orphaned blocks. A promotion to ERC-404 made in one is taken back.
    reorganization: {
      run: async (tx, above) => {
        await tx.query("DELETE FROM tokens WHERE first_seen_block > $1", [above.toString()]);
        await tx.query("UPDATE tokens SET total_supply = NULL, read_at_block = -1 WHERE read_at_block > $1", [
          above.toString(),
        ]);
        await takeBackPromotions(tx, above);
      },
    },
  }),
  tokenTransfers: defineTable({
    name: "token_transfers",
    key: ["block_number", "log_index"],
    columns: {
      block_number: "int8",
      log_index: "int4",
      transaction_index: "int4",
      token_address: "bytea",
      from_address: "bytea",
      to_address: "bytea",
      token_type: "text",
      token_ids: "numeric[]",
      amounts: "numeric[]",
      // The token's type (tokens.type), settled when the range's tokens are stored.
      token_contract_type: "text",
      // The list items the transfer gives: one per id of a batch, else one. A page counts its rows by it
      // without reading the arrays, which a batch of thousands of ids keeps out of line.
      item_count: "int4",
    },
    reorganization: { delete: "DELETE FROM token_transfers WHERE block_number > $1" },
  }),
  // The first `batchHeadItems` ids and amounts of each batch of more ids, which a transaction list's preview
  // or a page that starts the batch reads without reading the transfer's whole arrays. A table of its own:
  // as nullable columns of token_transfers, every transfer's row would carry a null bitmap (8 bytes).
  tokenTransferHeads: defineTable({
    name: "token_transfer_heads",
    key: ["block_number", "log_index"],
    columns: {
      block_number: "int8",
      log_index: "int4",
      token_ids: "numeric[]",
      amounts: "numeric[]",
    },
    reorganization: { delete: "DELETE FROM token_transfer_heads WHERE block_number > $1" },
  }),
  userOperations: defineTable({
    name: "user_operations",
    key: ["hash"],
    columns: {
      hash: "bytea",
      transaction_hash: "bytea",
      transaction_index: "int4",
      block_number: "int8",
      block_hash: "bytea",
      log_index: "int4",
      entry_point: "bytea",
      entry_point_version: "text",
      sender: "bytea",
      paymaster: "bytea",
      nonce: "numeric",
      success: "bool",
      actual_gas_cost: "numeric",
      actual_gas_used: "numeric",
      factory: "bytea",
      bundler: "bytea",
      aggregator: "bytea",
      revert_reason: "bytea",
      init_code: "bytea",
      call_data: "bytea",
      call_gas_limit: "numeric",
      verification_gas_limit: "numeric",
      pre_verification_gas: "numeric",
      max_fee_per_gas: "numeric",
      max_priority_fee_per_gas: "numeric",
      paymaster_and_data: "bytea",
      paymaster_verification_gas_limit: "numeric",
      paymaster_post_op_gas_limit: "numeric",
      signature: "bytea",
    },
    // A rescan of stored logs finds operations already stored: each is kept once.
    write: { onConflict: "ON CONFLICT (hash) DO NOTHING" },
    reorganization: { delete: "DELETE FROM user_operations WHERE block_number > $1" },
  }),
  addressTokenTransfers: defineTable({
    name: "address_token_transfers",
    key: ["address", "direction", "block_number", "log_index"],
    columns: {
      address: "bytea",
      block_number: "int8",
      log_index: "int4",
      direction: "int2",
      token_contract_type: "text",
    },
    reorganization: {
      delete: deleteAddressLinks(addressLinks.tokenTransfers),
    },
  }),
  tokenInstances: defineTable({
    name: "token_instances",
    key: ["token_address", "token_id"],
    columns: {
      token_address: "bytea",
      token_id: "numeric",
      first_seen_block: "int8",
    },
    write: { onConflict: "ON CONFLICT (token_address, token_id) DO NOTHING" },
    // Its holders and units are kept with token_balances, which takes them back before this delete.
    reorganization: { delete: "DELETE FROM token_instances WHERE first_seen_block > $1" },
    // Fetched from the token's URI in the background, whenever the metadata fetcher gets to it.
    volatile: [
      "token_uri",
      "metadata",
      "metadata_error",
      "metadata_fetched_at",
      "metadata_attempts",
      "metadata_retry_at",
    ],
  }),
  // Balances are the sum of the stored transfers: a range adds its transfers', a reorganization takes
  // the orphaned ones' back (keeping token_holders and tokens.holders_count exact on the way).
  tokenBalances: defineTable({
    name: "token_balances",
    key: ["token_address", "token_id", "holder"],
    write: { run: (tx, _rows, { from, to }) => applyTokenBalanceChanges(tx, from, to, 1) },
    reorganization: { run: (tx, above) => applyTokenBalanceChanges(tx, above + 1n, int8Max, -1) },
  }),
  tokenHolders: defineTable({
    name: "token_holders",
    key: ["token_address", "holder"],
    reorganization: { takenBackWith: "token_balances" },
  }),
  addresses: defineTable({
    name: "addresses",
    key: ["hash"],
    columns: { hash: "bytea", is_contract: "bool", first_seen_block: "int8" },
    write: {
      onConflict: `ON CONFLICT (hash) DO UPDATE SET
        is_contract = addresses.is_contract OR excluded.is_contract,
        first_seen_block = LEAST(addresses.first_seen_block, excluded.first_seen_block)`,
    },
    // Runs first, while the orphaned rows that name an address are still there: an address goes when
    // no kept block saw it, and one created in an orphaned block is no contract in the kept ones (a
    // creation fails where there is code already).
    reorganization: {
      run: async (tx, above) => {
        await byKeys(tx, () =>
          tx.query(
            `DELETE FROM addresses WHERE first_seen_block > $1 AND hash IN (
            SELECT from_address FROM transactions WHERE block_number > $1
            UNION SELECT to_address FROM transactions WHERE block_number > $1
            UNION SELECT created_contract FROM transactions WHERE block_number > $1
            UNION SELECT address FROM logs WHERE block_number > $1
            UNION SELECT miner FROM blocks WHERE number > $1
            UNION SELECT address FROM withdrawals WHERE block_number > $1
            UNION SELECT from_address FROM internal_transactions WHERE block_number > $1
            UNION SELECT to_address FROM internal_transactions WHERE block_number > $1
            UNION SELECT created_contract FROM internal_transactions WHERE block_number > $1
            UNION SELECT from_address FROM token_transfers WHERE block_number > $1
            UNION SELECT to_address FROM token_transfers WHERE block_number > $1)`,
            [above.toString()],
          ),
        );
        // A failed creation keeps the address it aimed at; a failed internal one has none. Without the
        // IS NOT NULL, the planner counts every orphaned transaction as a creation and scans all addresses.
        await tx.query(
          `UPDATE addresses SET is_contract = false WHERE is_contract AND hash IN (
            SELECT created_contract FROM transactions
            WHERE block_number > $1 AND created_contract IS NOT NULL AND status IS DISTINCT FROM 0
            UNION SELECT created_contract FROM internal_transactions
            WHERE block_number > $1 AND created_contract IS NOT NULL)`,
          [above.toString()],
        );
      },
    },
  }),
  // Progress of each indexing stream, moved by the writer in the same transaction as the data.
  checkpoints: defineTable({ name: "checkpoints", key: ["name"], reorganization: null }),
  // Moved by a trigger on every other table; two databases with the same rows may have other versions.
  dataVersion: defineTable({
    name: "data_version",
    key: ["singleton"],
    reorganization: null,
    volatile: ["version", "transaction_id"],
  }),
  chainIdentity: defineTable({ name: "chain_identity", key: ["singleton"], reorganization: null }),
  contractAbis: defineTable({
    name: "contract_abis",
    key: ["address"],
    reorganization: null,
    volatile: ["imported_at"],
  }),
  userOperationsStatus: defineTable({
    name: "user_operations_status",
    key: ["version"],
    reorganization: null,
    volatile: ["configured_at", "live_until"],
  }),
} as const;

type Tables = typeof tables;
type RangeTable = {
  [Name in keyof Tables]: Tables[Name] extends { columns: object } ? Name : never;
}[keyof Tables];

/** A range's rows of every table that ranges carry rows for, column-wise. */
export type RangeRows = {
  [Name in RangeTable]: Tables[Name] extends { columns: infer Columns extends Record<string, ColumnType> }
    ? TableRows<Columns>
    : never;
};

/** Empty rows for every table a range carries rows for. */
export function createRangeRows(): RangeRows {
  return Object.fromEntries(
    (Object.entries(tables) as [string, TableDefinition][]).flatMap(([name, table]) =>
      table.columns ? [[name, createTableRows(table.name, table.columns)]] : [],
    ),
  ) as RangeRows;
}

/** Writes rows of one table as its registry entry says (COPY, or an insert with its conflict clause). */
export async function insertTable<Name extends RangeTable>(tx: Queryable, name: Name, rows: RangeRows[Name]) {
  const table: TableDefinition = tables[name];
  const write = table.write;
  if (write && "run" in write) throw new Error(`${table.name} is written by a step of its own`);
  const generic = rows as TableRows<Record<string, ColumnType>>;
  if (write) await insertRows(tx, generic, { onConflict: write.onConflict });
  else await copyRows(tx, generic);
}

/**
 * Writes a range's rows into every table, in the registry's order, inside the caller's transaction. The
 * tables written plainly are sent without waiting for one another (the connection runs them in order),
 * so that the database stores one while the next is encoded; a step of its own waits for them first.
 */
export async function insertRange(tx: Queryable, rows: RangeRows, range: { from: bigint; to: bigint }) {
  let sent: Promise<void>[] = [];
  const settle = async () => {
    const writes = sent;
    sent = [];
    await Promise.all(writes);
  };
  for (const [name, table] of Object.entries(tables) as [keyof Tables, TableDefinition][]) {
    const write = table.write;
    if (write && "run" in write) {
      await settle();
      await write.run(tx, rows, range);
    } else if (table.columns) sent.push(insertTable(tx, name as RangeTable, rows[name as RangeTable]));
  }
  await settle();
}

/**
 * Takes back every row derived from blocks above `blockNumber` (orphaned by a reorganization), inside
 * the caller's transaction, in the reverse of the registry's order. Each table's `delete` runs by key
 * (`byKeys`).
 */
export async function deleteAbove(tx: Queryable, blockNumber: bigint): Promise<void> {
  for (const table of (Object.values(tables) as TableDefinition[]).reverse()) {
    const step = table.reorganization;
    if (step === null || "takenBackWith" in step) continue;
    if ("delete" in step) await byKeys(tx, () => tx.query(step.delete, [blockNumber.toString()]));
    else await step.run(tx, blockNumber);
  }
}

/**
 * Runs a reorganization's delete planned without hash or merge joins: it finds its rows by key from the
 * orphaned rows, and a hash join reads the whole table it deletes from. The planner chose one for the address
 * links from 64–128 orphaned blocks (a scan of 20 M `address_transactions` rows at 10 M transactions) and for
 * the addresses from 32 (3.1 M rows). Not for the balances' take-back, whose sums join better by hash.
 */
async function byKeys<T>(tx: Queryable, work: () => Promise<T>): Promise<T> {
  await tx.exec("SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off");
  const result = await work();
  await tx.exec("SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT");
  return result;
}
