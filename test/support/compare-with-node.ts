import { expect } from "vitest";
import type { Database } from "../../src/db/client.ts";
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
  ["input", "input", "data"],
];

const receiptFields: Mapping[] = [
  ["status", "status", "quantity"],
  ["gasUsed", "gas_used", "quantity"],
  ["effectiveGasPrice", "effective_gas_price", "quantity"],
  ["contractAddress", "created_contract", "address"],
  ["blobGasUsed", "blob_gas_used", "quantity"],
  ["blobGasPrice", "blob_gas_price", "quantity"],
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

function expectFields(
  row: Record<string, unknown>,
  answer: Record<string, unknown>,
  mappings: Mapping[],
  what: string,
) {
  for (const [field, column, kind] of mappings) {
    expect(row[column], `${what} ${field}`).toBe(normalize(answer[field], kind));
  }
}

/** Every stored block, in number order, equals the node's answer field by field. */
export async function expectBlocksMatch(db: Database, blocks: RpcFullBlock[]) {
  const rows = await db.query(
    `SELECT ${textColumns(blockFields)}, transaction_count FROM blocks b ORDER BY b.number`,
  );
  expect(rows).toHaveLength(blocks.length);
  blocks.forEach((block, i) => {
    const row = at(rows, i, "stored blocks");
    expectFields(row, block as unknown as Record<string, unknown>, blockFields, `block ${block.number}`);
    expect(row.transaction_count).toBe(block.transactions.length);
  });
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
  const rows = await db.query(
    `SELECT ${textColumns([...transactionFields, ...receiptFields])}, t.first_log_index, t.log_count
     FROM (SELECT t.*, b.hash AS block_hash FROM transactions t
      JOIN blocks b ON b.number = t.block_number) t ORDER BY t.block_number, t.index`,
  );
  const transactions = blocks.flatMap((block) => block.transactions);
  const flatReceipts = receipts.flat();
  expect(rows).toHaveLength(transactions.length);
  rows.forEach((row, i) => {
    const transaction = at(transactions, i, "the node's transactions");
    const what = `transaction ${transaction.hash}`;
    expectFields(row, transaction as unknown as Record<string, unknown>, transactionFields, what);
    expectFields(
      row,
      at(flatReceipts, i, "the node's receipts") as unknown as Record<string, unknown>,
      receiptFields,
      what,
    );
    // Where its logs are among the block's: the range a page reads them (and their transfers) by.
    const logs = at(flatReceipts, i, "the node's receipts").logs;
    expect([row.first_log_index, row.log_count], what).toEqual([
      logs.length === 0 ? null : Number(at(logs, 0, "the receipt's logs").logIndex),
      logs.length,
    ]);
  });
  return rows;
}

/**
 * Every stored log equals the node's, in (block, index) order, with the block and transaction hashes it
 * is served with: those of the block and transaction its position names.
 */
export async function expectLogsMatch(db: Database, receipts: RpcReceipt[][]) {
  const logsWithHashes = `(SELECT l.*, b.hash AS block_hash, t.hash AS transaction_hash FROM logs l
    JOIN blocks b ON b.number = l.block_number
    JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index) l`;
  const rows = await db.query(
    `SELECT block_number, log_index, transaction_index, ${textColumns([
      ["blockHash", "block_hash", "data"],
      ["transactionHash", "transaction_hash", "data"],
      ["address", "address", "address"],
      ["data", "data", "data"],
      ["", "topic0", "data"],
      ["", "topic1", "data"],
      ["", "topic2", "data"],
      ["", "topic3", "data"],
    ])} FROM ${logsWithHashes} ORDER BY block_number, log_index`,
  );
  const logs = receipts.flat().flatMap((receipt) => receipt.logs);
  expect(rows).toHaveLength(logs.length);
  rows.forEach((row, i) => {
    const log = at(logs, i, "the node's logs");
    expect(row.block_number).toBe(Number(log.blockNumber));
    expect(row.log_index).toBe(Number(log.logIndex));
    expect(row.transaction_index).toBe(Number(log.transactionIndex));
    expect(row.block_hash).toBe(log.blockHash);
    expect(row.transaction_hash).toBe(log.transactionHash);
    expect(row.address).toBe(log.address.toLowerCase());
    expect(row.data).toBe(log.data);
    expect([row.topic0, row.topic1, row.topic2, row.topic3]).toEqual(
      [0, 1, 2, 3].map((t) => log.topics[t] ?? null),
    );
  });
  return rows;
}
