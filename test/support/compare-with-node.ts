import type { Hash } from "viem";
import { expect } from "vitest";
import type { Database, Queryable } from "../../src/db/client.ts";
import { Direction } from "../../src/db/direction.ts";
import { type ColumnType, columnText } from "../../src/db/table-rows.ts";
import { addressLinks, tables } from "../../src/db/tables.ts";
import { readTokenTypes } from "../../src/db/token-types.ts";
import { mapParityBlock, transactionContextOf } from "../../src/indexer/map-traces.ts";
import { rangeBlocks } from "../../src/indexer/range-blocks.ts";
import { type RangeTransfers, tokenCandidatesOf, transferKey } from "../../src/indexer/token-candidates.ts";
import { transformRange } from "../../src/indexer/transform-range.ts";
import type { RpcClient } from "../../src/rpc/client.ts";
import { eth_getBlockByNumber } from "../../src/rpc/eth_getBlockByNumber.ts";
import { eth_getBlockReceipts } from "../../src/rpc/eth_getBlockReceipts.ts";
import { type ParityTrace, trace_block } from "../../src/rpc/trace_block.ts";
import type { RpcFullBlock, RpcReceipt } from "../../src/rpc/types.ts";
import { at } from "./elements.ts";

type Kind = "quantity" | "data" | "address";
type Mapping = [rpcField: string, column: string, kind: Kind];

const blockFields: Mapping[] = [
  ["number", "number", "quantity"],
  ["hash", "hash", "data"],
  ["parentHash", "parent_hash", "data"],
  ["timestamp", "timestamp", "quantity"],
  ["miner", "miner", "address"],
  ["gasLimit", "gas_limit", "quantity"],
  ["gasUsed", "gas_used", "quantity"],
  ["baseFeePerGas", "base_fee_per_gas", "quantity"],
  ["difficulty", "difficulty", "quantity"],
  ["totalDifficulty", "total_difficulty", "quantity"],
  ["size", "size", "quantity"],
  ["nonce", "nonce", "data"],
  ["extraData", "extra_data", "data"],
  ["mixHash", "mix_hash", "data"],
  ["sha3Uncles", "sha3_uncles", "data"],
  ["stateRoot", "state_root", "data"],
  ["transactionsRoot", "transactions_root", "data"],
  ["receiptsRoot", "receipts_root", "data"],
  ["logsBloom", "logs_bloom", "data"],
  ["blobGasUsed", "blob_gas_used", "quantity"],
  ["excessBlobGas", "excess_blob_gas", "quantity"],
  ["parentBeaconBlockRoot", "parent_beacon_block_root", "data"],
  ["withdrawalsRoot", "withdrawals_root", "data"],
];

const transactionFields: Mapping[] = [
  ["hash", "hash", "data"],
  ["blockNumber", "block_number", "quantity"],
  ["blockHash", "block_hash", "data"],
  ["transactionIndex", "index", "quantity"],
  ["from", "from_address", "address"],
  ["to", "to_address", "address"],
  ["value", "value", "quantity"],
  ["nonce", "nonce", "quantity"],
  ["type", "type", "quantity"],
  ["gas", "gas_limit", "quantity"],
  ["gasPrice", "gas_price", "quantity"],
  ["maxFeePerGas", "max_fee_per_gas", "quantity"],
  ["maxPriorityFeePerGas", "max_priority_fee_per_gas", "quantity"],
  ["maxFeePerBlobGas", "max_fee_per_blob_gas", "quantity"],
  ["input", "input", "data"],
];

const receiptFields: Mapping[] = [
  ["status", "status", "quantity"],
  ["gasUsed", "gas_used", "quantity"],
  ["effectiveGasPrice", "effective_gas_price", "quantity"],
  ["contractAddress", "created_contract", "address"],
  ["blobGasUsed", "blob_gas_used", "quantity"],
  ["blobGasPrice", "blob_gas_price", "quantity"],
  ["root", "root", "data"],
];

/** A node's value in the form the database returns it: decimal text for quantities, lowercase hex for data. */
function normalize(value: unknown, kind: Kind): string | null {
  if (value === undefined || value === null) return null;
  if (kind === "quantity") return BigInt(value as string).toString();
  return (value as string).toLowerCase();
}

/** SQL that returns `columns` as text: numbers in decimal, bytea as 0x hex. */
function textColumns(mappings: Mapping[]): string {
  return mappings
    .map(([, column, kind]) =>
      kind === "quantity" ? `${column}::text AS ${column}` : `'0x' || encode(${column}, 'hex') AS ${column}`,
    )
    .join(", ");
}

/**
 * A stored value unlike what was expected of it: the node's answer, or for an address link the row it indexes.
 * Where (a block, transaction, log, withdrawal, frame, token transfer or link), which field (`row` for a row
 * missing or extra), both values.
 */
export type ChainMismatch = { where: string; field: string; stored: unknown; expected: unknown };

function fieldMismatches(
  row: Record<string, unknown>,
  answer: Record<string, unknown>,
  mappings: Mapping[],
  where: string,
): ChainMismatch[] {
  return mappings.flatMap(([field, column, kind]) => {
    const expected = normalize(answer[field], kind);
    return row[column] === expected ? [] : [{ where, field, stored: row[column], expected }];
  });
}

/**
 * Each answer beside the stored row of the same identity (`where` names both), so that a row missing on
 * either side is one mismatch and the rows after it still meet their own answers.
 */
function pairs<Row extends Record<string, unknown>, Answer>(
  rows: Row[],
  answers: Answer[],
  rowWhere: (row: Row) => string,
  answerWhere: (answer: Answer) => string,
  compare: (row: Row, answer: Answer, where: string) => ChainMismatch[],
): ChainMismatch[] {
  const stored = new Map<string, Row>();
  const repeated: ChainMismatch[] = [];
  for (const row of rows) {
    const where = rowWhere(row);
    if (stored.has(where)) repeated.push({ where, field: "row", stored: "stored again", expected: null });
    stored.set(where, row);
  }
  const mismatches = answers.flatMap((answer) => {
    const where = answerWhere(answer);
    const row = stored.get(where);
    stored.delete(where);
    return row === undefined
      ? [{ where, field: "row", stored: null, expected: "answered" }]
      : compare(row, answer, where);
  });
  for (const where of stored.keys())
    mismatches.push({ where, field: "row", stored: "stored", expected: null });
  return [...repeated, ...mismatches];
}

/** Blocks `from..to` (every block when omitted) as the database holds them, in number order. */
function storedBlocks(db: Queryable, range?: [bigint, bigint]) {
  return db.query(
    `SELECT ${textColumns(blockFields)}, transaction_count, traced FROM blocks b
     ${range ? "WHERE b.number BETWEEN $1 AND $2" : ""} ORDER BY b.number`,
    range?.map(String),
  );
}

/** Every field of the stored blocks unlike the node's blocks, block by block. */
function blockMismatches(rows: Record<string, unknown>[], blocks: RpcFullBlock[]): ChainMismatch[] {
  return pairs(
    rows,
    blocks,
    (row) => `block ${row.number}`,
    (block) => `block ${BigInt(block.number)}`,
    (row, block, where) => [
      ...fieldMismatches(row, block as unknown as Record<string, unknown>, blockFields, where),
      ...(row.transaction_count === block.transactions.length
        ? []
        : [
            {
              where,
              field: "transaction count",
              stored: row.transaction_count,
              expected: block.transactions.length,
            },
          ]),
    ],
  );
}

/**
 * Transactions of blocks `from..to` (every one when omitted) with their receipt fields and the block hash
 * they are served with (their block's), in (block, index) order.
 */
function storedTransactions(db: Queryable, range?: [bigint, bigint]) {
  return db.query(
    `SELECT ${textColumns([...transactionFields, ...receiptFields, ["", "blob_versioned_hashes", "data"]])},
       t.first_log_index, t.log_count
     FROM (SELECT t.*, b.hash AS block_hash FROM transactions t
      JOIN blocks b ON b.number = t.block_number
      ${range ? "WHERE t.block_number BETWEEN $1 AND $2" : ""}) t ORDER BY t.block_number, t.index`,
    range?.map(String),
  );
}

/** Every field of the stored transactions unlike the node's transactions and receipts. */
function transactionMismatches(
  rows: Record<string, unknown>[],
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
): ChainMismatch[] {
  const flatReceipts = receipts.flat();
  const answers = blocks
    .flatMap((block) => block.transactions)
    .map((transaction, i) => ({ transaction, receipt: flatReceipts[i] }));
  return pairs(
    rows,
    answers,
    (row) => `transaction ${row.hash}`,
    (answer) => `transaction ${answer.transaction.hash}`,
    (row, { transaction, receipt }, where) => {
      if (receipt === undefined) return [{ where, field: "receipt", stored: "stored", expected: null }];
      // Where its logs are among the block's: the range a page reads them (and their transfers) by.
      const logRange = [
        receipt.logs.length === 0 ? null : Number(at(receipt.logs, 0, "the receipt's logs").logIndex),
        receipt.logs.length,
      ];
      // Stored as one value: the hashes one after another.
      const blobHashes = (transaction as { blobVersionedHashes?: readonly string[] }).blobVersionedHashes;
      const expectedBlobHashes = blobHashes?.length
        ? `0x${blobHashes.map((hash) => hash.slice(2)).join("")}`
        : null;
      return [
        ...fieldMismatches(row, transaction as unknown as Record<string, unknown>, transactionFields, where),
        ...(row.blob_versioned_hashes === expectedBlobHashes
          ? []
          : [
              {
                where,
                field: "blobVersionedHashes",
                stored: row.blob_versioned_hashes,
                expected: expectedBlobHashes,
              },
            ]),
        ...fieldMismatches(row, receipt as unknown as Record<string, unknown>, receiptFields, where),
        ...(row.first_log_index === logRange[0] && row.log_count === logRange[1]
          ? []
          : [
              { where, field: "log range", stored: [row.first_log_index, row.log_count], expected: logRange },
            ]),
      ];
    },
  );
}

const logColumns: Mapping[] = [
  ["blockHash", "block_hash", "data"],
  ["transactionHash", "transaction_hash", "data"],
  ["address", "address", "address"],
  ["data", "data", "data"],
];

/**
 * Logs of blocks `from..to` (every one when omitted), in (block, index) order, with the block and
 * transaction hashes they are served with: those of the block and transaction their position names.
 */
function storedLogs(db: Queryable, range?: [bigint, bigint]) {
  return db.query(
    `SELECT block_number, log_index, transaction_index, ${textColumns([
      ...logColumns,
      ["", "topic0", "data"],
      ["", "topic1", "data"],
      ["", "topic2", "data"],
      ["", "topic3", "data"],
    ])} FROM (SELECT l.*, b.hash AS block_hash, t.hash AS transaction_hash FROM logs l
      JOIN blocks b ON b.number = l.block_number
      JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index
      ${range ? "WHERE l.block_number BETWEEN $1 AND $2" : ""}) l
     ORDER BY block_number, log_index`,
    range?.map(String),
  );
}

/** Every field of the stored logs unlike the node's receipts' logs. */
function logMismatches(rows: Record<string, unknown>[], receipts: RpcReceipt[][]): ChainMismatch[] {
  const logs = receipts.flat().flatMap((receipt) => receipt.logs);
  return pairs(
    rows,
    logs,
    (row) => `log ${row.block_number}:${row.log_index}`,
    (log) => `log ${Number(log.blockNumber)}:${Number(log.logIndex)}`,
    (row, log, where) => {
      const topics = [0, 1, 2, 3].map((t) => log.topics[t] ?? null);
      const stored = [row.topic0, row.topic1, row.topic2, row.topic3];
      return [
        ...(["blockNumber", "logIndex", "transactionIndex"] as const).flatMap((field) => {
          const column = {
            blockNumber: "block_number",
            logIndex: "log_index",
            transactionIndex: "transaction_index",
          }[field];
          return row[column] === Number(log[field])
            ? []
            : [{ where, field, stored: row[column], expected: Number(log[field]) }];
        }),
        ...fieldMismatches(row, log as unknown as Record<string, unknown>, logColumns, where),
        ...(stored.every((topic, t) => topic === topics[t])
          ? []
          : [{ where, field: "topics", stored, expected: topics }]),
      ];
    },
  );
}

/** Withdrawals of blocks `from..to`, amounts in wei as stored. */
function storedWithdrawals(db: Queryable, range: [bigint, bigint]) {
  return db.query(
    `SELECT index::text, block_number::text, validator_index::text, '0x' || encode(address, 'hex') AS address,
       amount::text
     FROM withdrawals WHERE block_number BETWEEN $1 AND $2`,
    range.map(String),
  );
}

/** Every field of the stored withdrawals unlike the blocks' (the node gives amounts in gwei). */
function withdrawalMismatches(rows: Record<string, unknown>[], blocks: RpcFullBlock[]): ChainMismatch[] {
  const answers = blocks.flatMap((block) =>
    (block.withdrawals ?? []).map((withdrawal) => ({
      index: BigInt(withdrawal.index).toString(),
      block_number: BigInt(block.number).toString(),
      validator_index: BigInt(withdrawal.validatorIndex).toString(),
      address: withdrawal.address.toLowerCase(),
      amount: (BigInt(withdrawal.amount) * 1_000_000_000n).toString(),
    })),
  );
  return pairs(
    rows,
    answers,
    (row) => `withdrawal ${row.index}`,
    (answer) => `withdrawal ${answer.index}`,
    textMismatches,
  );
}

/** Each stored field of `row` unlike `answer`'s, both as text (null for SQL NULL). */
function textMismatches(
  row: Record<string, unknown>,
  answer: Record<string, string | null>,
  where: string,
): ChainMismatch[] {
  return Object.entries(answer).flatMap(([field, expected]) =>
    row[field] === expected ? [] : [{ where, field, stored: row[field], expected }],
  );
}

/** The derived tables compared with what the indexer makes of the node's answers, and how their rows are named. */
const derivedTables = [
  {
    name: "internalTransactions",
    where: (row: Record<string, unknown>) =>
      `frame ${row.block_number}:${row.transaction_index}:${row.index}`,
  },
  {
    name: "tokenTransfers",
    where: (row: Record<string, unknown>) => `token transfer ${row.block_number}:${row.log_index}`,
  },
  {
    name: "tokenTransferHeads",
    where: (row: Record<string, unknown>) => `token transfer head ${row.block_number}:${row.log_index}`,
  },
] as const;

type DerivedTable = (typeof derivedTables)[number]["name"];

/**
 * The rows of `table` in blocks `from..to`, each column as PostgreSQL prints it (`::text`); a token transfer
 * also with its token's type now (`token_row_type`), and its type in the transfer's block as far as the token
 * row tells (`token_type_then`: below its last promotion the type before it) with whether the block is at or
 * above that promotion (`promoted_by_then`). The row keeps one promotion: an earlier one is not recorded.
 */
function storedDerivedRows(db: Queryable, table: DerivedTable, range: [bigint, bigint]) {
  const { name, columns } = tables[table];
  const tokenType =
    table === "tokenTransfers"
      ? `, k.type AS token_row_type,
         CASE WHEN k.promoted_at_block > t.block_number THEN k.type_before_promotion ELSE k.type END AS token_type_then,
         COALESCE(k.promoted_at_block <= t.block_number, false) AS promoted_by_then`
      : "";
  const tokenRow = table === "tokenTransfers" ? " LEFT JOIN tokens k ON k.address = t.token_address" : "";
  return db.query(
    `SELECT ${Object.keys(columns)
      .map((column) => `t.${column}::text AS ${column}`)
      .join(", ")}${tokenType}
     FROM ${name} t${tokenRow} WHERE t.block_number BETWEEN $1 AND $2`,
    range.map(String),
  );
}

/** Each row of `rows` with every column in the text the writer hands to the database (bytes in lowercase). */
function rowsAsText(rows: {
  columns: Record<string, ColumnType>;
  values: Record<string, readonly unknown[]>;
  length: number;
}): Record<string, string | null>[] {
  const columns = Object.entries(rows.columns);
  return Array.from({ length: rows.length }, (_, i) =>
    Object.fromEntries(
      columns.map(([column, type]) => {
        const text = columnText(type, rows.values[column]?.[i] as never);
        return [column, type === "bytea" ? (text?.toLowerCase() ?? null) : text];
      }),
    ),
  );
}

/**
 * Each of the blocks' token transfers as the indexer's transform decodes them (with its default of every
 * contract's `Deposit` and `Withdrawal`), one block at a time: a wrap of a token that emits ERC-721 or ERC-1155
 * transfers in the same block is left out (tokenCandidatesOf), as the indexer, whose range holds the whole
 * block, leaves it out. A wrap of a token whose NFT transfers are only in other blocks is kept here; the indexer
 * may have left it out, which derivedMismatches settles by the token's type.
 */
function blockTransfers(blocks: RpcFullBlock[], receipts: RpcReceipt[][]): RangeTransfers {
  return new Map(
    blocks.flatMap((block, i) => [
      ...tokenCandidatesOf([block], [at(receipts, i, "a block's receipts")]).transfers,
    ]),
  );
}

/** The tokens (lowercase `0x` hex) of the WETH-style wraps and unwraps among `transfers`. */
function wrappingTokens(transfers: RangeTransfers): string[] {
  const tokens = [...transfers.values()].flatMap((transfer) =>
    typeof transfer === "object" && transfer.wrapping ? [transfer.token.toLowerCase()] : [],
  );
  return [...new Set(tokens)];
}

/**
 * Every stored frame, token transfer and batch head unlike the rows the indexer's own transform
 * (`transformRange`) makes of the node's blocks, receipts and traces, and each such row not stored. `traces`
 * holds the `trace_block` answers of the blocks stored as traced, by number; a block stored untraced must have
 * no frames. Beside the transform, a transfer's token type is its token's (`tokens.type`), which the writer
 * settles once the range's tokens are read.
 *
 * A WETH-style wrap or unwrap (`transfers`, see blockTransfers) is dropped by the indexer when its token is
 * not an ERC-20 in its block (attachTokens), or emitted an NFT transfer earlier in its range or in its block
 * (tokenCandidatesOf). So one stored must be of a
 * token that was an ERC-20 in its block, and one missing is a difference when its token is an ERC-20 now
 * (`tokenTypes`, keyed by lowercase `0x` address): such a token had no NFT transfer in any stored block. Where
 * the token row cannot tell the type in a block, an ERC-404 below its last promotion or never promoted (it may
 * have been an ERC-20 before a promotion the row no longer records), a stored one is taken as right.
 */
function derivedMismatches(
  stored: Record<DerivedTable, Record<string, unknown>[]>,
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
  traces: Map<string, ParityTrace[]>,
  transfers: RangeTransfers,
  tokenTypes: Map<string, string>,
): ChainMismatch[] {
  const internalTransactions = rangeBlocks({ blocks, receipts }).map(({ block, transactions }) => {
    const blockTraces = traces.get(BigInt(block.number).toString());
    return blockTraces === undefined
      ? transactions.map(() => [])
      : mapParityBlock(blockTraces, transactions.map(transactionContextOf));
  });
  const first = at(blocks, 0, "the window's blocks");
  const last = at(blocks, -1, "the window's blocks");
  const { rows } = transformRange({
    from: BigInt(first.number),
    to: BigInt(last.number),
    parentHash: first.parentHash,
    toHash: last.hash as Hash,
    blocks,
    receipts,
    internalTransactions,
    contracts: new Set(),
    tokenTransfers: transfers,
    tokenCandidates: new Map(),
    tokenReadings: new Map(),
    proxies: [],
  });
  const isWrapping = (answer: Record<string, string | null>) => {
    const transfer = transfers.get(transferKey(Number(answer.block_number), Number(answer.log_index)));
    return typeof transfer === "object" && transfer.wrapping === true;
  };
  // An ERC-404 at or above a recorded promotion became one there; otherwise it may have been an ERC-20 then.
  const mayWrap = (row: Record<string, unknown>) =>
    row.token_type_then === "ERC-20" || (row.token_type_then === "ERC-404" && row.promoted_by_then !== true);
  return derivedTables.flatMap(({ name, where }) => {
    const storedRows = stored[name];
    const storedKeys = new Set(storedRows.map(where));
    const answers = rowsAsText(rows[name]).filter(
      (answer) =>
        name !== "tokenTransfers" ||
        !isWrapping(answer) ||
        storedKeys.has(where(answer)) ||
        tokenTypes.get(`0x${answer.token_address?.slice(2)}`) === "ERC-20",
    );
    return pairs(storedRows, answers, where, where, (row, answer, label) => {
      if (name !== "tokenTransfers") return textMismatches(row, answer, label);
      const { token_contract_type: _settledLater, ...transformed } = answer;
      return [
        ...textMismatches(row, transformed, label),
        ...(isWrapping(answer) && !mayWrap(row)
          ? [{ where: label, field: "wrapping", stored: row.token_type_then, expected: "ERC-20" }]
          : []),
        ...(row.token_contract_type === row.token_row_type
          ? []
          : [
              {
                where: label,
                field: "token_contract_type",
                stored: row.token_contract_type,
                expected: row.token_row_type,
              },
            ]),
      ];
    });
  });
}

/** Every stored block, in number order, equals the node's answer field by field. */
export async function expectBlocksMatch(db: Database, blocks: RpcFullBlock[]) {
  expect(blockMismatches(await storedBlocks(db), blocks)).toEqual([]);
}

/**
 * Every stored transaction equals the node's transaction and receipt field by field, with the block hash
 * it is served with (its block's); returns the rows.
 */
export async function expectTransactionsMatch(
  db: Database,
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
) {
  const rows = await storedTransactions(db);
  expect(transactionMismatches(rows, blocks, receipts)).toEqual([]);
  return rows;
}

/**
 * Every stored log equals the node's, in (block, index) order, with the block and transaction hashes it
 * is served with: those of the block and transaction its position names.
 */
export async function expectLogsMatch(db: Database, receipts: RpcReceipt[][]) {
  const rows = await storedLogs(db);
  expect(logMismatches(rows, receipts)).toEqual([]);
  return rows;
}

function answered<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`the node has no ${what}`);
  return value;
}

/** What {@link chainMismatches} compared, and the first differences it found. */
export type ChainCheck = {
  /** The rows of each kind stored in blocks 0 to the head. */
  compared: {
    blocks: number;
    transactions: number;
    logs: number;
    withdrawals: number;
    frames: number;
    tokenTransfers: number;
  };
  /** At most the first 100. */
  mismatches: ChainMismatch[];
};

/**
 * Compares blocks 0 to `head` of the database with the node's, `window` blocks at a time: each stored field of
 * the blocks, their transactions with their receipts, their logs and their withdrawals against the node's
 * answers, the frames, token transfers and batch heads against what the indexer's transform makes of its
 * answers and `trace_block` traces, and that none of those is stored above `head`. For chains too large to hold in
 * memory at once; the node must answer `trace_block`.
 */
export async function chainMismatches(
  db: Queryable,
  client: RpcClient,
  head: bigint,
  { window = 100n }: { window?: bigint } = {},
): Promise<ChainCheck> {
  if (window < 1n) throw new RangeError(`not a window of blocks: ${window}`);
  const compared = { blocks: 0, transactions: 0, logs: 0, withdrawals: 0, frames: 0, tokenTransfers: 0 };
  const mismatches: ChainMismatch[] = [];
  for (let from = 0n; from <= head; from += window) {
    const to = from + window - 1n < head ? from + window - 1n : head;
    const numbers = Array.from({ length: Number(to - from) + 1 }, (_, i) => from + BigInt(i));
    const [
      blocks,
      receipts,
      blockRows,
      transactionRows,
      logRows,
      withdrawalRows,
      internalTransactions,
      tokenTransfers,
      tokenTransferHeads,
    ] = await Promise.all([
      eth_getBlockByNumber(client, { blocks: numbers }),
      eth_getBlockReceipts(client, { blocks: numbers }),
      storedBlocks(db, [from, to]),
      storedTransactions(db, [from, to]),
      storedLogs(db, [from, to]),
      storedWithdrawals(db, [from, to]),
      storedDerivedRows(db, "internalTransactions", [from, to]),
      storedDerivedRows(db, "tokenTransfers", [from, to]),
      storedDerivedRows(db, "tokenTransferHeads", [from, to]),
    ]);
    const fullBlocks = blocks.map((block, i) => answered(block, `block ${numbers[i]}`));
    const fullReceipts = receipts.map((list, i) => answered(list, `the receipts of block ${numbers[i]}`));
    const transfers = blockTransfers(fullBlocks, fullReceipts);
    const tokenTypes = await readTokenTypes(db, wrappingTokens(transfers));
    // Only the blocks stored as traced have frames to compare; a block stored untraced must have none.
    const traced = blockRows.filter((row) => row.traced === true).map((row) => BigInt(row.number as string));
    const traces = new Map(
      (await trace_block(client, { blocks: traced })).map((list, i) => [
        String(traced[i]),
        answered(list, `the traces of block ${traced[i]}`),
      ]),
    );
    compared.blocks += blockRows.length;
    compared.transactions += transactionRows.length;
    compared.logs += logRows.length;
    compared.withdrawals += withdrawalRows.length;
    compared.frames += internalTransactions.length;
    compared.tokenTransfers += tokenTransfers.length;
    mismatches.push(
      ...blockMismatches(blockRows, fullBlocks),
      ...transactionMismatches(transactionRows, fullBlocks, fullReceipts),
      ...logMismatches(logRows, fullReceipts),
      ...withdrawalMismatches(withdrawalRows, fullBlocks),
      ...derivedMismatches(
        { internalTransactions, tokenTransfers, tokenTransferHeads },
        fullBlocks,
        fullReceipts,
        traces,
        transfers,
        tokenTypes,
      ),
    );
    if (mismatches.length >= 100) break;
  }
  const [above] = await db.query<Record<keyof ChainCheck["compared"], number>>(
    `SELECT (SELECT count(*)::int FROM blocks WHERE number > $1) AS blocks,
       (SELECT count(*)::int FROM transactions WHERE block_number > $1) AS transactions,
       (SELECT count(*)::int FROM logs WHERE block_number > $1) AS logs,
       (SELECT count(*)::int FROM withdrawals WHERE block_number > $1) AS withdrawals,
       (SELECT count(*)::int FROM internal_transactions WHERE block_number > $1) AS frames,
       (SELECT count(*)::int FROM token_transfers WHERE block_number > $1) AS "tokenTransfers",
       (SELECT count(*)::int FROM token_transfer_heads WHERE block_number > $1) AS "tokenTransferHeads"`,
    [head.toString()],
  );
  const beyond = Object.entries(above ?? {}).flatMap(([table, count]) =>
    count > 0 ? [{ where: `above block ${head}`, field: table, stored: count, expected: 0 }] : [],
  );
  return { compared, mismatches: [...beyond, ...mismatches].slice(0, 100) };
}

/** The direction bit each party column of a link's source gives (src/indexer/transform/participation.ts). */
const partyBits: Record<string, number> = {
  from_address: Direction.from,
  to_address: Direction.to,
  created_contract: Direction.created,
};

/** What a link copies from its source row, as SQL over `s`, by link table. */
const copiedColumns: Record<string, Record<string, string>> = {
  address_transactions: {
    value: "s.value",
    fee: "s.gas_used * COALESCE(s.effective_gas_price, s.gas_price, 0)",
  },
  address_token_transfers: { token_contract_type: "s.token_contract_type" },
};

/**
 * Every row of the address index tables (`address_transactions`, `address_internal_transactions`,
 * `address_token_transfers`) against the rows they index: one per party of each transaction, frame and
 * transfer, its roles or-ed into `direction`, with the columns copied from the row (a transaction's value
 * and fee, a transfer's token type). A link missing, left over or different is a mismatch; at most 100.
 */
export async function addressLinkMismatches(db: Queryable): Promise<ChainMismatch[]> {
  const mismatches: ChainMismatch[] = [];
  for (const links of Object.values(addressLinks)) {
    const columns = copiedColumns[links.table] ?? {};
    // The link's key from a party's address; its direction, when the key holds one, is the parties' bits or-ed.
    const linkKey: Record<string, string> = links.keyOf("p.party", "direction");
    const keyColumns = Object.keys(linkKey);
    const key = Object.fromEntries(Object.entries(linkKey).filter(([column]) => column !== "direction"));
    const compared = ["direction", ...Object.keys(columns)].filter((column) => !keyColumns.includes(column));
    const rows = await db.query<{ key: string; stored: string | null; expected: string | null }>(
      `WITH expected AS (
         SELECT ${Object.entries(key)
           .map(([column, sql]) => `${sql} AS ${column}`)
           .join(", ")}, bit_or(p.bit)::int2 AS direction${Object.entries(columns)
           .map(([column, sql]) => `, ${sql} AS ${column}`)
           .join("")}
         FROM ${links.source} s
         CROSS JOIN LATERAL (VALUES ${links.parties.map((column) => `(s.${column}, ${partyBits[column]})`).join(", ")})
           AS p(party, bit)
         WHERE p.party IS NOT NULL
         GROUP BY p.party, ${[...Object.values(key), ...Object.values(columns)].join(", ")}
       )
       SELECT concat_ws('/', ${keyColumns
         .map((column) => `COALESCE(e.${column}, a.${column})::text`)
         .join(", ")}) AS key,
         CASE WHEN a.${keyColumns[0]} IS NULL THEN NULL ELSE row(${compared.map((column) => `a.${column}`).join(", ")})::text END AS stored,
         CASE WHEN e.${keyColumns[0]} IS NULL THEN NULL ELSE row(${compared.map((column) => `e.${column}`).join(", ")})::text END AS expected
       FROM expected e
       FULL JOIN ${links.table} a ON ${keyColumns.map((column) => `a.${column} = e.${column}`).join(" AND ")}
       WHERE a.${keyColumns[0]} IS NULL OR e.${keyColumns[0]} IS NULL
         OR row(${compared.map((column) => `a.${column}`).join(", ")}) IS DISTINCT FROM row(${compared.map((column) => `e.${column}`).join(", ")})
       LIMIT 100`,
    );
    mismatches.push(
      ...rows.map((row) => ({
        where: `${links.table} ${row.key}`,
        field: "row",
        stored: row.stored,
        expected: row.expected,
      })),
    );
  }
  return mismatches.slice(0, 100);
}
